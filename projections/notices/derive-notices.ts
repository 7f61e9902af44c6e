/**
 * Derives a batch's notices from its events and the per-order state the batch needs, read once
 * (./load-plan.ts). Events are applied one by one in ledger order to that state, in memory, so
 * the outcome is the same at any batch boundary; the batch then writes the final state of every
 * order it changed and its notices, and queues the notices it inserted (./outbox-fan-out.ts).
 * Pure: the same events and state give the same notices, on every replay.
 *
 * The rules (seed §6, DESIGN.md §4):
 * - order_filled: a TradeSettled that brings the order's executed amount (sell orders: sold
 *   before fees; buy orders: bought) to its full amount; order_partially_filled: any other
 *   TradeSettled of a placed order. Both carry the order's total executed amount.
 * - price_improvement: beside a fill, when the trade beat the limit price (the surplus).
 * - order_cancelled: the first OrderCancelled of an order (API or chain), unless it is filled.
 * - order_expired: the ledger's own clock: each AuctionClosed of a network (at `cutAt`)
 *   expires every order of that network placed before it whose `validTo` is behind the cut,
 *   that is not filled, not cancelled, not expired yet and not held; once per order. An order
 *   in a winning solution is held (seed §3: expired means without execution, and the indexer
 *   records a fill only after confirmations, often after `validTo`): from that AuctionClosed
 *   until the solution's SettlementFailed, the order's next TradeSettled, or a cut after the
 *   auction's `deadline` plus SETTLEMENT_RECORDING_MARGIN_SECONDS. A `timedOut` failure holds
 *   on: its transaction was sent and may still land. A later win holds it anew. A fill that
 *   leaves the order partly filled ends the hold: it expires at the next cut, with that part.
 * - insufficient_balance: an AuctionClosed that filters an open order for InsufficientBalance,
 *   once per episode: the episode ends when a later AuctionClosed of the network holds the
 *   order (or when the order is filled, cancelled or expired, after which it is in no auction).
 * - A reorg (ChainFactReverted) never takes a notice back: the notice told what the chain said
 *   then. It undoes the trade's amounts (or the invalidation) in the order's state, so later
 *   notices are right; a trade recorded again after the reorg is noticed again (under the same
 *   id when it is the same log with the same outcome, which then is not repeated).
 * - A pre-signed order tells its owner nothing until a PreSignatureSet (signed) of its UID is on
 *   the canonical chain, before or after its placement: its placement needs no signature and
 *   may name anyone as its owner, while only the owner can set the pre-signature. What happens
 *   to it before then (a cancellation, an expiry) changes its state without a notice. A later
 *   revocation does not silence it (its owner did place it); a reorg that takes back its only
 *   pre-signature does.
 * Only placed orders have notices: other chain facts of a UID never placed are ignored.
 */
import type {
  AuctionClosedV5,
  OrderCancelledV1,
  PreSignatureSetV1,
  SettlementFailedV1,
  TradeSettledV1,
} from '../../src/domain/events.js';
import {
  cancelledMessage,
  expiredMessage,
  filledMessage,
  insufficientBalanceMessage,
  isExpiredAt,
  noticeId,
  noticeTimestamp,
  partiallyFilledMessage,
  priceImprovement,
  priceImprovementMessage,
  SETTLEMENT_RECORDING_MARGIN_SECONDS,
  unixSeconds,
  type Notice,
  type NoticeMetadata,
  type NoticeType,
} from '../../src/domain/notices.js';
import { executedAmount } from '../../src/domain/trade-execution.js';
import { ExpiryQueue } from './expiry-queue.js';
import { releasesHold, winners } from './load-plan.js';
import type { NoticeEvent, SubscriptionEvent } from './notice-events.js';
import {
  authorised,
  filled,
  fromRow,
  heldAt,
  isOpen,
  placedOrder,
  toRow,
  type Hold,
  type OrderState,
} from './order-state.js';
import type { NoticeOrderRow, PresignatureRow } from './rows.js';

/** A notice with the index of the event that made it (for the subscriptions of that moment). */
export interface SequencedNotice {
  seq: number;
  notice: Notice;
  network: string;
}

export interface Derived {
  /** The final state of every order the batch changed. */
  orders: NoticeOrderRow[];
  /** The pre-signature counts the batch changed. */
  presignatures: PresignatureRow[];
  /** In ledger order, each id once (the first one made). */
  notices: SequencedNotice[];
  subscriptionEvents: { seq: number; event: SubscriptionEvent }[];
}

/**
 * Applies the batch's events in order to `loaded` (the rows `loadPlan` asked for: every order
 * the events name, the orders in an insufficient-balance episode and the orders that may expire
 * by the batch's latest cut, of each network with an auction in the batch, and the orders the
 * batch's failed settlements hold; an order may come more than once, the first row counts) and
 * to `presignatures` (the stored counts of the UIDs the plan named).
 */
export function deriveNotices(
  events: readonly NoticeEvent[],
  loaded: readonly NoticeOrderRow[],
  presignatures: readonly PresignatureRow[],
): Derived {
  const orders = new Map<string, OrderState>();
  const dirty = new Set<OrderState>();
  const expiring = new Map<string, ExpiryQueue>();
  /** The orders each winning solution (network, auction id, rank) has held, to release. */
  const holders = new Map<string, OrderState[]>();
  const notices = new Map<string, SequencedNotice>();
  const subscriptionEvents: Derived['subscriptionEvents'] = [];
  const keyOf = (network: string, uid: string) => `${network}/${uid}`;
  const signedLogs = new Map<string, PresignatureRow>();
  for (const r of presignatures) {
    signedLogs.set(keyOf(r.network, r.uid), { ...r, signed_logs: Number(r.signed_logs) });
  }
  const countedLogs = new Set<PresignatureRow>();
  const presignedNow = (network: string, uid: string) =>
    (signedLogs.get(keyOf(network, uid))?.signed_logs ?? 0) > 0;

  const mayExpire = (o: OrderState) => {
    if (!isOpen(o)) return;
    let queue = expiring.get(o.network);
    if (!queue) expiring.set(o.network, (queue = new ExpiryQueue()));
    queue.push(o);
  };
  const holdersKey = (network: string, auction: number, rank: number) =>
    `${network}/${auction}/${rank}`;
  const hold = (o: OrderState, held: Hold) => {
    o.hold = held;
    const key = holdersKey(o.network, held.auction, held.rank);
    holders.set(key, [...(holders.get(key) ?? []), o]);
  };
  for (const row of loaded) {
    // The same order may be loaded more than once (it is one order: one state, queued once).
    const key = keyOf(row.network, row.uid);
    if (orders.has(key)) continue;
    const o = fromRow(row);
    orders.set(key, o);
    if (o.hold) hold(o, o.hold);
    mayExpire(o);
  }

  let seq = 0;
  const notice = (
    o: OrderState,
    type: NoticeType,
    discriminator: readonly (string | number)[],
    message: string,
    time: string,
    extra: Omit<NoticeMetadata, 'orderId' | 'network'> = {},
  ) => {
    if (!authorised(o)) return;
    const id = noticeId(type, o.network, o.uid, ...discriminator);
    if (notices.has(id)) return;
    notices.set(id, {
      seq,
      network: o.network,
      notice: {
        id,
        account: o.owner,
        type,
        message,
        timestamp: noticeTimestamp(time),
        metadata: { orderId: o.uid, ...extra, network: o.network },
      },
    });
  };
  /** Closed orders take part in no auction: their episode, if any, ends. */
  const closeEpisode = (o: OrderState) => {
    if (!isOpen(o)) o.shortOfBalance = false;
  };

  const trade = (d: TradeSettledV1) => {
    const o = orders.get(keyOf(d.network, d.uid));
    if (!o) return;
    const amounts = {
      sellAmount: BigInt(d.sellAmount),
      buyAmount: BigInt(d.buyAmount),
      feeAmount: BigInt(d.feeAmount),
    };
    const before = filled(o);
    o.executed = {
      sell: o.executed.sell + amounts.sellAmount,
      buy: o.executed.buy + amounts.buyAmount,
      fee: o.executed.fee + amounts.feeAmount,
    };
    dirty.add(o);
    if (o.hold) {
      // The fill the hold waited for: a partly filled order now expires at the next cut past
      // its validTo (it is queued again at that time).
      o.hold = null;
      mayExpire(o);
    }
    const log = [d.chain.blockHash, d.chain.logIndex];
    const executedAmountText = executedAmount(o.kind, o.executed).toString();
    if (!before && filled(o)) {
      notice(o, 'order_filled', log, filledMessage(o, o.executed), d.settledAt, {
        executedAmount: executedAmountText,
      });
    } else {
      notice(
        o,
        'order_partially_filled',
        log,
        partiallyFilledMessage(o, amounts, o.executed),
        d.settledAt,
        { executedAmount: executedAmountText },
      );
    }
    const improvement = priceImprovement(o, amounts);
    if (improvement) {
      notice(o, 'price_improvement', log, priceImprovementMessage(o, improvement), d.settledAt, {
        executedAmount: executedAmountText,
        surplus: improvement.surplus.toString(),
        surplusToken: improvement.token,
      });
    }
    closeEpisode(o);
  };

  const untrade = (d: TradeSettledV1) => {
    const o = orders.get(keyOf(d.network, d.uid));
    if (!o) return;
    o.executed = {
      sell: o.executed.sell - BigInt(d.sellAmount),
      buy: o.executed.buy - BigInt(d.buyAmount),
      fee: o.executed.fee - BigInt(d.feeAmount),
    };
    dirty.add(o);
    // Open again, it may yet expire.
    mayExpire(o);
  };

  const cancel = (d: OrderCancelledV1) => {
    const o = orders.get(keyOf(d.network, d.uid));
    if (!o) return;
    if (d.source === 'chain') o.chainInvalidations += 1;
    else o.apiCancelled = true;
    dirty.add(o);
    if (!o.cancelSeen) {
      o.cancelSeen = true;
      if (!filled(o))
        notice(o, 'order_cancelled', [], cancelledMessage(o, d.source), d.cancelledAt);
    }
    closeEpisode(o);
  };

  /** A signed pre-signature log of the UID entered (+1) or left (−1) the canonical chain. */
  const countPresignature = (d: PreSignatureSetV1, change: 1 | -1) => {
    if (!d.signed) return;
    const key = keyOf(d.network, d.uid);
    let row = signedLogs.get(key);
    if (!row) signedLogs.set(key, (row = { network: d.network, uid: d.uid, signed_logs: 0 }));
    row.signed_logs = Math.max(0, row.signed_logs + change);
    countedLogs.add(row);
    const o = orders.get(key);
    if (o && o.presigned !== row.signed_logs > 0) {
      o.presigned = row.signed_logs > 0;
      dirty.add(o);
    }
  };

  const uninvalidate = (d: OrderCancelledV1) => {
    const o = orders.get(keyOf(d.network, d.uid));
    if (!o || o.chainInvalidations === 0) return;
    o.chainInvalidations -= 1;
    dirty.add(o);
    mayExpire(o);
  };

  const auction = (a: AuctionClosedV5) => {
    const cut = unixSeconds(a.cutAt);
    // Expiry first: the cut left out what had expired by then.
    const queue = expiring.get(a.network);
    for (let o = queue?.popBefore(cut); o; o = queue!.popBefore(cut)) {
      // Closed since it was queued (it is queued again if a reorg reopens it).
      if (!isOpen(o) || !isExpiredAt(o.validTo, a.cutAt)) continue;
      // Held since it was queued: queued again, at the hold's end.
      if (heldAt(o, cut)) {
        queue!.push(o);
        continue;
      }
      o.expired = true;
      dirty.add(o);
      notice(o, 'order_expired', [], expiredMessage(o, o.executed), a.cutAt, {
        auctionId: a.id,
      });
      closeEpisode(o);
    }
    // The winners' orders are valid at this cut (it took them in), so the order of these two
    // steps changes nothing for them.
    const until = unixSeconds(a.deadline) + SETTLEMENT_RECORDING_MARGIN_SECONDS;
    for (const s of winners(a)) {
      for (const traded of s.orders) {
        const o = orders.get(keyOf(a.network, traded.uid));
        if (!o || !isOpen(o)) continue;
        hold(o, { auction: a.id, rank: s.rank, until });
        dirty.add(o);
        mayExpire(o);
      }
    }
    for (const held of a.orders) {
      const o = orders.get(keyOf(a.network, held.uid));
      if (o?.shortOfBalance) {
        o.shortOfBalance = false;
        dirty.add(o);
      }
    }
    for (const f of a.filtered) {
      if (f.reason !== 'InsufficientBalance') continue;
      const o = orders.get(keyOf(a.network, f.uid));
      if (!o || o.shortOfBalance || !isOpen(o)) continue;
      o.shortOfBalance = true;
      dirty.add(o);
      notice(o, 'insufficient_balance', [a.id], insufficientBalanceMessage(o), a.cutAt, {
        auctionId: a.id,
      });
    }
  };

  const failed = (d: SettlementFailedV1) => {
    if (!releasesHold(d)) return;
    for (const o of holders.get(holdersKey(d.network, d.auctionId, d.rank)) ?? []) {
      // Held since by a later win, or released already: that hold stands.
      if (o.hold?.auction !== d.auctionId || o.hold.rank !== d.rank) continue;
      // A filled, cancelled or expired order's hold matters no more, and a later batch's load
      // of the failure's holders reads open orders only: it stays as it is, in any batching.
      if (!isOpen(o)) continue;
      o.hold = null;
      dirty.add(o);
      mayExpire(o);
    }
  };

  for (const e of events) {
    switch (e.type) {
      case 'OrderPlaced': {
        const d = e.data;
        const key = keyOf(d.network, d.uid);
        // A repeated placement changes nothing: the first one stays.
        if (orders.has(key)) break;
        const o = placedOrder(d, presignedNow(d.network, d.uid));
        orders.set(key, o);
        dirty.add(o);
        mayExpire(o);
        break;
      }
      case 'TradeSettled':
        trade(e.data);
        break;
      case 'OrderCancelled':
        cancel(e.data);
        break;
      case 'PreSignatureSet':
        countPresignature(e.data, 1);
        break;
      case 'ChainFactReverted': {
        const fact = e.data.reverted;
        if (fact.type === 'TradeSettled') untrade(fact.data);
        else if (fact.type === 'OrderCancelled') uninvalidate(fact.data);
        else if (fact.type === 'PreSignatureSet') countPresignature(fact.data, -1);
        break;
      }
      case 'AuctionClosed':
        auction(e.data);
        break;
      case 'SettlementFailed':
        failed(e.data);
        break;
      case 'SubscriptionAdded':
      case 'SubscriptionVerified':
      case 'SubscriptionRemoved':
        subscriptionEvents.push({ seq, event: e });
        break;
    }
    seq++;
  }
  return {
    orders: [...dirty].map(toRow),
    presignatures: [...countedLogs],
    notices: [...notices.values()],
    subscriptionEvents,
  };
}
