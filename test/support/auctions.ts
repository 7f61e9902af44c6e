/**
 * The auctions a ledger recorded, each read back whole: an `AuctionClosed` may record only the
 * changes since its base (src/domain/auction-record.ts), which suites asking "which auctions held
 * this order" must apply before they ask.
 */
import { applyChanges, type CutRecord } from '../../src/domain/auction-record.js';
import type { AuctionClosedV5 } from '../../src/domain/events.js';
import type { Ledger } from '../../src/ledger/port.js';

/** Every `AuctionClosed` of the ledger, in ledger order, its cut whole (`base` null). */
export async function recordedAuctions(ledger: Ledger): Promise<AuctionClosedV5[]> {
  const cuts = new Map<string, CutRecord>();
  const key = (network: string, id: number) => `${network}/${id}`;
  return (await ledger.readAll(null, 1_000_000))
    .filter((e) => e.type === 'AuctionClosed')
    .map((e) => {
      const recorded = e.data as AuctionClosedV5;
      const base =
        recorded.base === null ? null : (cuts.get(key(recorded.network, recorded.base)) ?? null);
      const cut = applyChanges(base, recorded);
      cuts.set(key(recorded.network, recorded.id), cut);
      return {
        ...recorded,
        base: null,
        orders: [...cut.orders],
        left: [],
        prices: { ...cut.prices },
        unpriced: [],
        filtered: [...cut.filtered],
        unfiltered: [],
      };
    });
}
