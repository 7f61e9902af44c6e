/**
 * The loop a chain follower runs: hold the leader lock of its role (one instance per network
 * across processes; the others wait), call `step` every poll interval while holding it, and
 * stop promptly. A failed step is retried at the next interval; `ChainMoved` (the chain changed
 * under a step, e.g. a reorg) is expected and retried silently. A lock that is lost (the
 * database went away) is asked for again at once, and while that fails, again with a backoff of
 * its own: the poll interval may be long (an autopilot's auction interval), and the role must
 * not stay vacant that long after the database is back.
 */
import type { Logger } from 'pino';
import type { LeaderKey, RequestLeadership } from '../ledger/leadership.js';

/** A step read a block that changed under it: start the step again. */
export class ChainMoved extends Error {}

export interface LeaderLoopOptions {
  requestLeadership: RequestLeadership;
  key: LeaderKey;
  pollIntervalMs: number;
  logger: Logger;
  /**
   * One pass; `isStopping()` tells a long pass to end early, `isLeading()` whether the lock is
   * still held (a pass that outlived it must not write what the new leader may write too).
   */
  step(isStopping: () => boolean, isLeading: () => boolean): Promise<void>;
  /** Failures that are part of the job, like `ChainMoved`: retried without a warning. */
  expected?(error: unknown): boolean;
}

/** The longest wait between two attempts to take a lock whose session failed. */
const MAX_RETRY_MS = 5_000;

export interface LeaderLoop {
  stop(): Promise<void>;
}

export function startLeaderLoop(options: LeaderLoopOptions): LeaderLoop {
  const { logger: log, pollIntervalMs } = options;
  let stopped = false;
  let wake: (() => void) | null = null;
  let release: (() => Promise<void>) | null = null;
  let signalStop = () => {};
  // Ending a session that is still connecting does not always settle its lock request:
  // waiting for the lock also ends when the loop stops.
  const stopping = new Promise<void>((resolve) => (signalStop = resolve));
  // Resolves at once after `stop()`: a stop that came while a step ran must not wait an interval.
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      if (stopped) return resolve();
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const expected = (error: unknown) =>
    error instanceof ChainMoved || (options.expected?.(error) ?? false);

  const run = async () => {
    for (let failures = 0; !stopped;) {
      const leadership = options.requestLeadership(options.key, (err) => {
        log.warn({ err }, 'leadership lost');
        (wake as (() => void) | null)?.();
      });
      release = () => leadership.release();
      // Abandoned at a stop, the request may still fail later: that is expected, not unhandled.
      leadership.acquired.catch(() => undefined);
      try {
        await Promise.race([leadership.acquired, stopping]);
        failures = 0;
        while (!stopped && leadership.held) {
          try {
            await options.step(
              () => stopped,
              () => leadership.held,
            );
          } catch (error) {
            if (!expected(error)) log.warn({ err: error }, 'step failed; retrying');
          }
          if (leadership.held) await pause(pollIntervalMs);
        }
      } catch (error) {
        if (!stopped) log.warn({ err: error }, 'leadership failed; retrying');
        await pause(Math.min(MAX_RETRY_MS, 100 * 2 ** failures++));
      } finally {
        await leadership.release();
      }
    }
  };

  const running = run();
  return {
    async stop() {
      stopped = true;
      signalStop();
      (wake as (() => void) | null)?.();
      await (release as (() => Promise<void>) | null)?.();
      await running;
    },
  };
}
