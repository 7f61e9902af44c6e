/**
 * When a bare ledger subscription (no projector, nothing written) first delivers each position:
 * the part of a projector's lag that is the ledger's own. The Postgres ledger shows a row only
 * once no older transaction is still running anywhere in the cluster (DESIGN.md §3), so a
 * projector's long batch transaction delays every reader, this one included.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Ledger } from '../../../src/ledger/port.js';

export interface VisibilityWatch {
  /** When the subscription delivered `position` (performance.now()); null after `timeoutMs`. */
  seen(position: string, timeoutMs: number): Promise<number | null>;
  close(): Promise<void>;
}

export function watchVisibility(ledger: Ledger): VisibilityWatch {
  // Positions delivered before anyone asked, and askers waiting for theirs; each used once.
  const delivered = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  const subscription = ledger.subscribe(null);
  const running = (async () => {
    for await (const event of subscription) {
      const at = performance.now();
      const waiter = waiting.get(event.position);
      if (waiter) waiter(at);
      else delivered.set(event.position, at);
    }
  })();
  return {
    async seen(position, timeoutMs) {
      const at = delivered.get(position);
      if (at !== undefined) {
        delivered.delete(position);
        return at;
      }
      const seen = new Promise<number>((resolve) => waiting.set(position, resolve));
      const result = await Promise.race([seen, sleep(timeoutMs, null)]);
      waiting.delete(position);
      return result;
    },
    async close() {
      await subscription.close();
      await running;
    },
  };
}
