/**
 * Which orders a batch of the notices projector touches: what it must read of the stored state
 * before the derivation (./derive-notices.ts) can apply its events. Besides the orders its
 * events name, an auction may expire or release orders no event of the batch names: those are
 * found by the auction's network and cut, and by the failed settlements' solutions.
 */
import type { AuctionClosedV5, SettlementFailedV1 } from '../../src/domain/events.js';
import { unixSeconds } from '../../src/domain/notices.js';
import type { NoticeEvent } from './notice-events.js';

/** What the batch must read before deriving: orders by key, and per network the latest cut. */
export interface LoadPlan {
  keys: { network: string; uid: string }[];
  /** The UIDs whose pre-signatures the batch counts or asks about (placed or not). */
  presignatures: { network: string; uid: string }[];
  /** Per network with an AuctionClosed in the batch: the latest cut (Unix seconds). */
  clocks: { network: string; cut: number }[];
  /** The solutions whose settlement failed in the batch: the orders they hold. */
  failures: { network: string; auction: number; rank: number }[];
}

export function loadPlan(events: readonly NoticeEvent[]): LoadPlan {
  const keys = new Map<string, { network: string; uid: string }>();
  const presignatures = new Map<string, { network: string; uid: string }>();
  const clocks = new Map<string, number>();
  const failures: LoadPlan['failures'] = [];
  const key = (network: string, uid: string) => keys.set(`${network}/${uid}`, { network, uid });
  const presignature = (d: { network: string; uid: string }) => {
    key(d.network, d.uid);
    presignatures.set(`${d.network}/${d.uid}`, { network: d.network, uid: d.uid });
  };
  for (const e of events) {
    switch (e.type) {
      case 'OrderPlaced':
        if (e.data.signingScheme === 'presign') presignature(e.data);
        else key(e.data.network, e.data.uid);
        break;
      case 'OrderCancelled':
      case 'TradeSettled':
        key(e.data.network, e.data.uid);
        break;
      case 'PreSignatureSet':
        presignature(e.data);
        break;
      case 'ChainFactReverted': {
        const fact = e.data.reverted;
        if (fact.type === 'TradeSettled' || fact.type === 'OrderCancelled') {
          key(fact.data.network, fact.data.uid);
        } else if (fact.type === 'PreSignatureSet') presignature(fact.data);
        break;
      }
      case 'AuctionClosed': {
        const { network, cutAt, filtered } = e.data;
        const cut = unixSeconds(cutAt);
        clocks.set(network, Math.max(clocks.get(network) ?? cut, cut));
        for (const f of filtered) if (f.reason === 'InsufficientBalance') key(network, f.uid);
        for (const s of winners(e.data)) for (const o of s.orders) key(network, o.uid);
        break;
      }
      case 'SettlementFailed':
        if (releasesHold(e.data)) {
          failures.push({ network: e.data.network, auction: e.data.auctionId, rank: e.data.rank });
        }
        break;
      case 'SubscriptionAdded':
      case 'SubscriptionVerified':
      case 'SubscriptionRemoved':
        break;
    }
  }
  return {
    keys: [...keys.values()],
    presignatures: [...presignatures.values()],
    clocks: [...clocks].map(([network, cut]) => ({ network, cut })),
    failures,
  };
}

/** No order to read (the pre-signatures read only names orders `keys` names too). */
export const isEmptyPlan = (plan: LoadPlan): boolean =>
  plan.keys.length === 0 && plan.clocks.length === 0 && plan.failures.length === 0;

/** The solutions that won the auction: their orders are held until they settle. */
export const winners = (a: AuctionClosedV5) => a.solutions.filter((s) => s.isWinner);

/**
 * A failure that ends its solution's hold: not a time-out, whose transaction is out there and
 * may still land (the hold then lasts until the deadline's margin passes).
 */
export const releasesHold = (d: SettlementFailedV1) => d.reason !== 'timedOut';
