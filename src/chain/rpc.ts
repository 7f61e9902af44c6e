/**
 * JSON-RPC access to one network: an ethers provider pinned to the network's chain id, with a
 * timeout on every request and retries with backoff on transport failures. A revert is an
 * answer, not a failure: it is never retried. Nor is a time-out: a node that hangs would
 * otherwise hold a client's request for every attempt's full timeout (~41 s at the defaults).
 */
import { FetchRequest, isError, type JsonRpcProvider } from 'ethers';
import type { Network } from '../domain/networks.js';
import { NodeProvider, type RpcObserver } from './node-provider.js';

export type { RpcObserver, RpcResult } from './node-provider.js';

export interface RpcOptions {
  /** Per request, in milliseconds. */
  timeoutMs: number;
  /** Further attempts after a transport failure. */
  retries: number;
}

export const DEFAULT_RPC_OPTIONS: RpcOptions = { timeoutMs: 10_000, retries: 3 };

/** Tells nobody. */
const UNOBSERVED: RpcObserver = { answered: () => undefined };

/** The chain did not answer (after retries): a write that needs it cannot be decided now. */
export class ChainUnavailableError extends Error {
  constructor(
    readonly network: string,
    what: string,
    cause: unknown,
  ) {
    super(`${network}: ${what} failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'ChainUnavailableError';
  }
}

export interface ChainRpc {
  readonly network: Network;
  readonly provider: JsonRpcProvider;
  /**
   * Runs `request` with retries; transport failures end as `ChainUnavailableError`. With
   * `batched`, `request` gets a provider on the same node whose requests of one event-loop turn
   * go as one JSON-RPC batch (one HTTP request, one answer per entry): for the order
   * submissions' short `eth_call`s, where the round trip costs more than the call.
   */
  request<T>(
    what: string,
    request: (provider: JsonRpcProvider) => Promise<T>,
    options?: { batched?: boolean },
  ): Promise<T>;
  close(): void;
}

/**
 * Reverts and bad arguments are answers; everything else may pass on a second try. A batch
 * answered without one of its entries (some nodes refuse batches above their own cap with a
 * single error) is the node failing us, not an answer about the call.
 */
function retriable(error: unknown): boolean {
  if (isError(error, 'BAD_DATA') && error.shortMessage === 'missing response for request') {
    return true;
  }
  return !(
    isError(error, 'CALL_EXCEPTION') ||
    isError(error, 'INVALID_ARGUMENT') ||
    isError(error, 'BAD_DATA')
  );
}

/**
 * Entries per batch: more than the submissions in flight at the benches' concurrency (32), far
 * below the cap of geth (1,000 by default); a fuller turn goes as several batches.
 */
const BATCH_MAX_COUNT = 64;

const backoff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 2000)));

export function createChainRpc(
  network: Network,
  url: string,
  options: RpcOptions = DEFAULT_RPC_OPTIONS,
  observer: RpcObserver = UNOBSERVED,
): ChainRpc {
  const fetchRequest = new FetchRequest(url);
  fetchRequest.timeout = options.timeoutMs;
  // Requests are not batched, so one slow call (a wide eth_getLogs) cannot hold up the others.
  const provider = new NodeProvider(fetchRequest, network, 1, observer);
  // The requests of one event-loop turn go as one array; a failure of the whole HTTP request
  // (refused, 5xx, time-out) goes to every caller, whose `request` then retries or gives up on
  // its own. The time-out stays per HTTP request.
  const batched = new NodeProvider(fetchRequest, network, BATCH_MAX_COUNT, observer);
  return {
    network,
    provider,
    async request(what, request, { batched: inBatch = false } = {}) {
      for (let attempt = 0; ; attempt++) {
        try {
          return await request(inBatch ? batched : provider);
        } catch (error) {
          if (!retriable(error)) throw error;
          if (attempt >= options.retries || isError(error, 'TIMEOUT'))
            throw new ChainUnavailableError(network.name, what, error);
          await backoff(attempt);
        }
      }
    },
    close() {
      provider.destroy();
      batched.destroy();
    },
  };
}
