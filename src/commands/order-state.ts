/**
 * An order as the commands that change it see it: its state folded from both of its streams,
 * and the revision of its API stream, which guards the command's append (optimistic
 * concurrency: a concurrent cancellation or replacement makes the append fail).
 */
import { streams, type OrderUid } from '../domain/events.js';
import { foldOrder, type OrderState } from '../domain/lifecycle.js';
import { upcast } from '../domain/upcast.js';
import type { Ledger, RecordedEvent } from '../ledger/port.js';

export interface LoadedOrder {
  uid: OrderUid;
  /** Null when the order was never placed. */
  state: OrderState | null;
  /** Of the API stream; -1n when it does not exist. */
  revision: bigint;
  /** The API stream's events as recorded (with their metadata). */
  recorded: readonly RecordedEvent[];
}

export async function loadOrder(
  ledger: Ledger,
  network: string,
  uid: OrderUid,
): Promise<LoadedOrder> {
  // The chain's facts (fills, invalidations) decide too; only the API stream is guarded by its
  // revision, as a change racing a settlement is decided by the chain anyway.
  const [recorded, onChain] = await Promise.all([
    ledger.readStream(streams.order(network, uid)),
    ledger.readStream(streams.orderOnChain(network, uid)),
  ]);
  const events = [...recorded, ...onChain].map((e) => upcast(e.type, e.version, e.data));
  return { uid, state: foldOrder(events), revision: BigInt(recorded.length - 1), recorded };
}
