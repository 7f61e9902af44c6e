/**
 * JSON-RPC access to one network: an ethers provider pinned to the network's chain id, with a
 * timeout on every request and retries with backoff on transport failures. A revert is an
 * answer, not a failure: it is never retried. Nor is a time-out: a node that hangs would
 * otherwise hold a client's request for every attempt's full timeout (~41 s at the defaults).
 */
import { FetchRequest, JsonRpcProvider, Network as EthersNetwork, isError } from 'ethers';
import type { Network } from '../domain/networks.js';

export interface RpcOptions {
  /** Per request, in milliseconds. */
  timeoutMs: number;
  /** Further attempts after a transport failure. */
  retries: number;
}

export const DEFAULT_RPC_OPTIONS: RpcOptions = { timeoutMs: 10_000, retries: 3 };

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
  /** Runs `request` with retries; transport failures end as `ChainUnavailableError`. */
  request<T>(what: string, request: (provider: JsonRpcProvider) => Promise<T>): Promise<T>;
  close(): void;
}

/** Reverts and bad arguments are answers; everything else may pass on a second try. */
function retriable(error: unknown): boolean {
  return !(
    isError(error, 'CALL_EXCEPTION') ||
    isError(error, 'INVALID_ARGUMENT') ||
    isError(error, 'BAD_DATA')
  );
}

const backoff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 2000)));

export function createChainRpc(
  network: Network,
  url: string,
  options: RpcOptions = DEFAULT_RPC_OPTIONS,
): ChainRpc {
  const fetchRequest = new FetchRequest(url);
  fetchRequest.timeout = options.timeoutMs;
  // The chain id is known: no eth_chainId round trip before every request. Requests are not
  // batched, so one slow call cannot hold up the others. No cache: by default ethers answers a
  // repeated request within 250 ms from memory, which would hide a reorg from the indexer.
  const provider = new JsonRpcProvider(fetchRequest, network.chainId, {
    staticNetwork: EthersNetwork.from(network.chainId),
    batchMaxCount: 1,
    cacheTimeout: -1,
  });
  return {
    network,
    provider,
    async request(what, request) {
      for (let attempt = 0; ; attempt++) {
        try {
          return await request(provider);
        } catch (error) {
          if (!retriable(error)) throw error;
          if (attempt >= options.retries || isError(error, 'TIMEOUT'))
            throw new ChainUnavailableError(network.name, what, error);
          await backoff(attempt);
        }
      }
    },
    close: () => provider.destroy(),
  };
}
