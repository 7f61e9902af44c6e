/**
 * Runs the auctions on a thread of their own (./worker.ts): cutting an auction of thousands of
 * orders, reading its market, ranking the solutions and building the record are work of tens of
 * milliseconds at a time, which on the serving thread every request would queue behind; here it
 * runs beside them, on a core of its own where the machine has one to spare (BENCHMARKS.md,
 * "Issue 26: auctions on a thread of their own"). The service thread answers the thread's
 * questions about the read models (their checkpoints are kept here), and takes its metrics and
 * log lines as its own.
 *
 * A thread that ends unasked is reported and started again with backoff
 * (src/threads/supervisor.ts): the auctions pause meanwhile, the API serves on.
 */
import { pino, type Logger } from 'pino';
import type { AuctionObserver } from '../auction/observer.js';
import type { RpcObserver } from '../chain/rpc.js';
import { fromRecord } from '../threads/error-record.js';
import { replayObserverCall } from '../threads/observer-relay.js';
import { superviseThread, type SupervisedStart } from '../threads/supervisor.js';
import type { AuctionThreadData, FromAuctionThread, ToAuctionThread } from './messages.js';

export interface AuctionThreadOptions extends Omit<AuctionThreadData, 'logLevel'> {
  /** Whether the read models took in the ledger up to `position`, for `network`'s autopilot. */
  projected(network: string, position: string): Promise<boolean>;
  /** The metrics the thread's work tells. */
  observers: { auctions: AuctionObserver; rpc: RpcObserver };
  /** The service's log: the thread logs at its level, into its destination. */
  logger: Logger;
  /** An error the thread could not log itself, and a thread that ended unasked. */
  onError(err: unknown): void;
  /** The module the thread runs: ./worker.ts unless a test wraps it. */
  workerUrl?: string;
}

const WORKER_URL = new URL('./worker.ts', import.meta.url).href;

/** Where a pino logger writes its lines. */
const destinationOf = (logger: Logger) =>
  (logger as unknown as Record<symbol, { write(line: string): void }>)[pino.symbols.streamSym]!;

/**
 * Starts the thread and returns at once (the service's other steps start meanwhile); `started`
 * resolves once every live network's autopilot runs on it.
 */
export function startAuctionThread(
  options: AuctionThreadOptions,
): SupervisedStart<ToAuctionThread> {
  const { projected, observers, logger, onError, workerUrl = WORKER_URL, ...data } = options;
  const destination = destinationOf(logger);
  const start: SupervisedStart<ToAuctionThread> = superviseThread<
    FromAuctionThread,
    ToAuctionThread
  >({
    name: 'the auction thread',
    moduleUrl: workerUrl,
    data: { ...data, logLevel: logger.level } satisfies AuctionThreadData,
    onMessage: (message) => {
      switch (message.type) {
        case 'projected':
          void projected(message.network, message.position).then((caughtUp) =>
            start.thread.post({ type: 'projected', id: message.id, caughtUp }),
          );
          return;
        case 'observed':
          return replayObserverCall(observers, message.call);
        case 'log':
          return destination.write(message.line);
        case 'error':
          return onError(fromRecord(message.error));
      }
    },
    onError,
  });
  return start;
}
