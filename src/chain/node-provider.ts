/**
 * The ethers provider every chain read and write goes through (./rpc.ts adds retries and
 * time-outs): pinned to its network's chain id, uncached, sending the requests of one event-loop
 * turn together, and telling an observer how each went (src/metrics).
 */
import { performance } from 'node:perf_hooks';
import {
  JsonRpcProvider,
  Network as EthersNetwork,
  makeError,
  type FetchRequest,
  type JsonRpcError,
  type JsonRpcPayload,
  type JsonRpcResult,
} from 'ethers';
import type { Network } from '../domain/networks.js';

/** How each JSON-RPC request went, per method (src/metrics). */
export interface RpcObserver {
  /**
   * One entry of an HTTP request answered (or not) after `seconds`, the whole request's time:
   * `ok`, an `rpc` error in its answer (a revert too), or a `transport` failure (refused, 5xx,
   * time-out), which fails every entry of its request.
   */
  answered(network: string, method: string, seconds: number, result: RpcResult): void;
}

export type RpcResult = 'ok' | 'rpc' | 'transport';

/** A request waiting for the end of the event-loop turn it was asked in. */
interface Queued {
  payload: JsonRpcPayload;
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

/** ethers' refusal of a request to a destroyed provider. */
const cancelled = (payload: JsonRpcPayload) =>
  makeError('provider destroyed; cancelled request', 'UNSUPPORTED_OPERATION', {
    operation: payload.method,
  });

/**
 * A provider that tells `observer` how each request it sends went, and sends the requests asked
 * in one event-loop turn when the turn ends, as JSON-RPC batches of up to `batchMaxCount`.
 *
 * ethers queues requests until a `setTimeout(0)` fires, which Node holds for at least 1 ms:
 * 1.1 ms of the 1.4 ms an `eth_blockNumber` to anvil took through it, against 0.3 ms sent
 * straight away (BENCHMARKS.md, issue 26). Here the queue is sent by `setImmediate`, which runs
 * once the poll phase has handed out the turn's I/O: the requests of one turn still go together,
 * and none waits for a timer. Each answer goes to its caller as ethers' own queue hands it out:
 * an entry's error through `getRpcError` (a revert is a CALL_EXCEPTION), a missing entry as
 * BAD_DATA "missing response for request", a failed HTTP request to every caller of its batch.
 */
export class NodeProvider extends JsonRpcProvider {
  private readonly networkName: string;
  private queued: Queued[] = [];
  private nextId = 1;

  constructor(
    request: FetchRequest,
    network: Network,
    private readonly batchMaxCount: number,
    private readonly observer: RpcObserver,
  ) {
    // The chain id is known: no eth_chainId round trip before every request. No cache: by
    // default ethers answers a repeated request within 250 ms from memory, which would hide a
    // reorg from the indexer.
    super(request, network.chainId, {
      staticNetwork: EthersNetwork.from(network.chainId),
      batchMaxCount,
      cacheTimeout: -1,
    });
    this.networkName = network.name;
  }

  override send(method: string, params: unknown[] | Record<string, unknown>): Promise<unknown> {
    // ethers' own refusal of a destroyed provider.
    if (this.destroyed) return super.send(method, params);
    return new Promise((resolve, reject) => {
      const payload = { method, params, id: this.nextId++, jsonrpc: '2.0' as const };
      this.queued.push({ payload, resolve, reject });
      if (this.queued.length === 1) setImmediate(() => this.drain());
    });
  }

  private drain(): void {
    const queued = this.queued;
    this.queued = [];
    // Destroyed meanwhile: nothing more goes to the node, as with ethers' own queue.
    if (this.destroyed) {
      for (const { payload, reject } of queued) reject(cancelled(payload));
      return;
    }
    for (let start = 0; start < queued.length; start += this.batchMaxCount) {
      void this.dispatch(queued.slice(start, start + this.batchMaxCount));
    }
  }

  private async dispatch(batch: Queued[]): Promise<void> {
    const payloads = batch.map((entry) => entry.payload);
    let answers: JsonRpcResult[];
    try {
      answers = await this._send(payloads.length === 1 ? payloads[0]! : payloads);
    } catch (error) {
      for (const { reject } of batch) reject(error);
      return;
    }
    const byId = new Map<number, JsonRpcResult | JsonRpcError>(answers.map((a) => [a.id, a]));
    for (const { payload, resolve, reject } of batch) {
      const answer = byId.get(payload.id);
      if (this.destroyed) {
        reject(cancelled(payload));
      } else if (answer === undefined) {
        reject(
          makeError('missing response for request', 'BAD_DATA', {
            value: answers,
            info: { payload },
          }),
        );
      } else if ('error' in answer) {
        reject(this.getRpcError(payload, answer));
      } else {
        resolve(answer.result);
      }
    }
  }

  override async _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    const entries = Array.isArray(payload) ? payload : [payload];
    const began = performance.now();
    const seconds = () => (performance.now() - began) / 1000;
    let answers: (JsonRpcResult | JsonRpcError)[];
    try {
      answers = await super._send(payload);
    } catch (error) {
      const took = seconds();
      for (const { method } of entries) {
        this.observer.answered(this.networkName, method, took, 'transport');
      }
      throw error;
    }
    const took = seconds();
    const failed = new Set(answers.filter((answer) => 'error' in answer).map(({ id }) => id));
    for (const { id, method } of entries) {
      this.observer.answered(this.networkName, method, took, failed.has(id) ? 'rpc' : 'ok');
    }
    return answers as JsonRpcResult[];
  }
}
