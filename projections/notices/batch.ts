/**
 * Derives a batch's notices from its events and the per-order state the batch needs, read once
 * (see `loadPlan`). Events are applied one by one in ledger order to that state, in memory, so
 * the outcome is the same at any batch boundary; the batch then writes the final state of every
 * order it changed, its notices, and the outbox rows of the notices it inserted.
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
 *
 * Each new notice is queued in the outbox for the subscriptions of its account that are active
 * and verified at that point of the ledger (`applySubscriptions`): a destination receives
 * nothing but its verification request until it has answered it (SubscriptionVerified).
 */
import type {
  Address,
  AuctionClosedV5,
  DeliveryChannel,
  DestinationVerification,
  OrderCancelledV1,
  OrderKind,
  OrderUid,
  PreSignatureSetV1,
  SettlementFailedV1,
  TradeSettledV1,
} from '../../src/domain/events.js';
import {
  cancelledMessage,
  executedAmount,
  expiredMessage,
  filledMessage,
  insufficientBalanceMessage,
  isExpiredAt,
  isFilled,
  noticeId,
  noticeTimestamp,
  partiallyFilledMessage,
  priceImprovement,
  priceImprovementMessage,
  SETTLEMENT_RECORDING_MARGIN_SECONDS,
  unixSeconds,
  type Executed,
  type Notice,
  type NoticeMetadata,
  type NoticeOrder,
  type NoticeType,
} from '../../src/domain/notices.js';
import {
  verificationRequest,
  type VerificationRequest,
} from '../../src/domain/destination-verification.js';
import { verifiedOnAdding } from '../../src/domain/subscription-auth.js';
import type { EventOf } from '../events.js';

export type NoticeEvent = EventOf<
  | 'OrderPlaced'
  | 'OrderCancelled'
  | 'TradeSettled'
  | 'PreSignatureSet'
  | 'ChainFactReverted'
  | 'AuctionClosed'
  | 'SettlementFailed'
  | 'SubscriptionAdded'
  | 'SubscriptionVerified'
  | 'SubscriptionRemoved'
>;

export const NOTICE_EVENT_TYPES: ReadonlySet<NoticeEvent['type']> = new Set([
  'OrderPlaced',
  'OrderCancelled',
  'TradeSettled',
  'PreSignatureSet',
  'ChainFactReverted',
  'AuctionClosed',
  'SettlementFailed',
  'SubscriptionAdded',
  'SubscriptionVerified',
  'SubscriptionRemoved',
]);

/** A `notice_orders` row, amounts as decimal strings. */
export interface NoticeOrderRow {
  network: string;
  uid: string;
  owner: string;
  sell_token: string;
  buy_token: string;
  sell_amount: string;
  buy_amount: string;
  kind: string;
  partially_fillable: boolean;
  valid_to: number;
  executed_sell: string;
  executed_buy: string;
  executed_fee: string;
  filled: boolean;
  api_cancelled: boolean;
  chain_invalidations: number;
  cancel_seen: boolean;
  expired: boolean;
  short_of_balance: boolean;
  /** The winning solution (auction id, rank) holding the order's expiry, and until when. */
  held_auction: number | null;
  held_rank: number | null;
  held_until: number | null;
  /** Signed with `presign`: it has notices only once `presigned`. */
  presign: boolean;
  /** A signed pre-signature of its UID is on the canonical chain. */
  presigned: boolean;
}

/** A `notice_presignatures` row: the signed PreSignature logs of a UID on the canonical chain. */
export interface PresignatureRow {
  network: string;
  uid: string;
  signed_logs: number;
}

export interface NoticeRow {
  id: string;
  account: string;
  network: string;
  type: NoticeType;
  message: string;
  timestamp: string;
  metadata: NoticeMetadata;
}

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

/** A notice with the index of the event that made it (for the subscriptions of that moment). */
export interface SequencedNotice {
  seq: number;
  notice: Notice;
  network: string;
}

export type SubscriptionEvent = EventOf<
  'SubscriptionAdded' | 'SubscriptionVerified' | 'SubscriptionRemoved'
>;

export interface Derived {
  /** The final state of every order the batch changed. */
  orders: NoticeOrderRow[];
  /** The pre-signature counts the batch changed. */
  presignatures: PresignatureRow[];
  /** In ledger order, each id once (the first one made). */
  notices: SequencedNotice[];
  subscriptionEvents: { seq: number; event: SubscriptionEvent }[];
}

// ---- what to load ------------------------------------------------------------------------

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

const winners = (a: AuctionClosedV5) => a.solutions.filter((s) => s.isWinner);

/**
 * A failure that ends its solution's hold: not a time-out, whose transaction is out there and
 * may still land (the hold then lasts until the deadline's margin passes).
 */
const releasesHold = (d: SettlementFailedV1) => d.reason !== 'timedOut';

// ---- the per-order state -----------------------------------------------------------------

interface OrderState extends NoticeOrder {
  partiallyFillable: boolean;
  validTo: number;
  executed: Executed;
  apiCancelled: boolean;
  chainInvalidations: number;
  cancelSeen: boolean;
  expired: boolean;
  shortOfBalance: boolean;
  /** The winning solution whose settlement may still fill the order, and until when. */
  hold: Hold | null;
  presign: boolean;
  presigned: boolean;
}

interface Hold {
  auction: number;
  rank: number;
  /** Unix seconds: the auction's deadline plus SETTLEMENT_RECORDING_MARGIN_SECONDS. */
  until: number;
}

function fromRow(r: NoticeOrderRow): OrderState {
  return {
    network: r.network,
    uid: r.uid as OrderUid,
    owner: r.owner as Address,
    sellToken: r.sell_token as Address,
    buyToken: r.buy_token as Address,
    sellAmount: BigInt(r.sell_amount),
    buyAmount: BigInt(r.buy_amount),
    kind: r.kind as OrderKind,
    partiallyFillable: r.partially_fillable,
    validTo: Number(r.valid_to),
    executed: {
      sell: BigInt(r.executed_sell),
      buy: BigInt(r.executed_buy),
      fee: BigInt(r.executed_fee),
    },
    apiCancelled: r.api_cancelled,
    chainInvalidations: r.chain_invalidations,
    cancelSeen: r.cancel_seen,
    expired: r.expired,
    shortOfBalance: r.short_of_balance,
    hold:
      r.held_auction === null
        ? null
        : {
            auction: Number(r.held_auction),
            rank: Number(r.held_rank),
            until: Number(r.held_until),
          },
    presign: r.presign,
    presigned: r.presigned,
  };
}

function toRow(o: OrderState): NoticeOrderRow {
  return {
    network: o.network,
    uid: o.uid,
    owner: o.owner,
    sell_token: o.sellToken,
    buy_token: o.buyToken,
    sell_amount: o.sellAmount.toString(),
    buy_amount: o.buyAmount.toString(),
    kind: o.kind,
    partially_fillable: o.partiallyFillable,
    valid_to: o.validTo,
    executed_sell: o.executed.sell.toString(),
    executed_buy: o.executed.buy.toString(),
    executed_fee: o.executed.fee.toString(),
    filled: isFilled(o, o.executed),
    api_cancelled: o.apiCancelled,
    chain_invalidations: o.chainInvalidations,
    cancel_seen: o.cancelSeen,
    expired: o.expired,
    short_of_balance: o.shortOfBalance,
    held_auction: o.hold?.auction ?? null,
    held_rank: o.hold?.rank ?? null,
    held_until: o.hold?.until ?? null,
    presign: o.presign,
    presigned: o.presigned,
  };
}

const filled = (o: OrderState) => isFilled(o, o.executed);
const cancelled = (o: OrderState) => o.apiCancelled || o.chainInvalidations > 0;
/** Neither filled, cancelled nor expired: it can expire, and take part in auctions. */
const isOpen = (o: OrderState) => !o.expired && !filled(o) && !cancelled(o);
/** Its owner is known to have placed it: signed, or pre-signed on chain. */
const authorised = (o: OrderState) => !o.presign || o.presigned;

/** Held at a cut at `cut` (Unix seconds): a winning settlement may still fill the order. */
const heldAt = (o: OrderState, cut: number) => o.hold !== null && cut <= o.hold.until;
/** A cut after this (Unix seconds) may expire the order, as things stand. */
const expiresAfter = (o: OrderState) => Math.max(o.validTo, o.hold?.until ?? o.validTo);

/**
 * Per network, the orders that may expire, soonest first (a binary min-heap), each by its
 * `expiresAfter` when pushed: a hold that changes later pushes the order again, and a pop
 * checks the order as it is then.
 */
class ExpiryQueue {
  private readonly heap: { after: number; o: OrderState }[] = [];

  push(o: OrderState): void {
    const h = this.heap;
    h.push({ after: expiresAfter(o), o });
    for (let i = h.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.after <= h[i]!.after) break;
      [h[parent], h[i]] = [h[i]!, h[parent]!];
      i = parent;
    }
  }

  /** Removes and returns the soonest order if it was pushed to expire before `cut`. */
  popBefore(cut: number): OrderState | undefined {
    const h = this.heap;
    if (h.length === 0 || h[0]!.after >= cut) return undefined;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let least = i;
        if (l < h.length && h[l]!.after < h[least]!.after) least = l;
        if (r < h.length && h[r]!.after < h[least]!.after) least = r;
        if (least === i) break;
        [h[least], h[i]] = [h[i]!, h[least]!];
        i = least;
      }
    }
    return top.o;
  }
}

// ---- the derivation ----------------------------------------------------------------------

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
        const o: OrderState = {
          network: d.network,
          uid: d.uid,
          owner: d.owner,
          sellToken: d.order.sellToken,
          buyToken: d.order.buyToken,
          sellAmount: BigInt(d.order.sellAmount),
          buyAmount: BigInt(d.order.buyAmount),
          kind: d.order.kind,
          partiallyFillable: d.order.partiallyFillable,
          validTo: d.order.validTo,
          executed: { sell: 0n, buy: 0n, fee: 0n },
          apiCancelled: false,
          chainInvalidations: 0,
          cancelSeen: false,
          expired: false,
          shortOfBalance: false,
          hold: null,
          presign: d.signingScheme === 'presign',
          presigned: presignedNow(d.network, d.uid),
        };
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

// ---- subscriptions and the outbox --------------------------------------------------------

/** A `subscriptions` row as the batch reads it. */
export interface LoadedSubscription {
  id: string;
  account: string;
  channel: DeliveryChannel;
  removed: boolean;
  verified: boolean;
}

export interface SubscriptionRow {
  id: string;
  account: string;
  channel: DeliveryChannel;
  verification: DestinationVerification;
  added_at: string;
  verified_at: string | null;
  removed_at: string | null;
}

/** One delivery to make: a notice, or the verification request of a new subscription. */
export interface OutboxRow {
  notice_id: string;
  subscription_id: string;
  account: string;
  channel: DeliveryChannel;
  notice: Notice | null;
  verification: VerificationRequest | null;
}

/** The subscriptions to read: of the accounts with new notices, and those the events name. */
export function subscriptionsToLoad(
  derived: Derived,
  inserted: ReadonlySet<string>,
): { accounts: string[]; ids: string[] } {
  const accounts = new Set<string>();
  for (const n of derived.notices) if (inserted.has(n.notice.id)) accounts.add(n.notice.account);
  return {
    accounts: [...accounts],
    ids: [...new Set(derived.subscriptionEvents.map((s) => s.event.data.id))],
  };
}

/**
 * Plays the batch's subscription events, in ledger order between its notices, on the stored
 * subscriptions: every inserted notice goes to the account's subscriptions active and verified
 * at that point. A subscription id is added once (a repeated SubscriptionAdded changes nothing),
 * verified once and removed once, each by its own account. A new subscription whose destination
 * must answer a verification (an e-mail code, a webhook challenge) gets that request queued.
 */
export function applySubscriptions(
  loaded: readonly LoadedSubscription[],
  derived: Derived,
  inserted: ReadonlySet<string>,
): {
  added: SubscriptionRow[];
  verified: { id: string; verified_at: string }[];
  removed: { id: string; removed_at: string }[];
  outbox: OutboxRow[];
} {
  interface Sub {
    id: string;
    account: string;
    channel: DeliveryChannel;
    active: boolean;
    /** Null: stored before the batch. */
    added: { at: string; verification: DestinationVerification } | null;
    /** Verified, and when if the batch did it. */
    verified: boolean;
    verifiedAt: string | null;
    /** When the batch removed it. */
    removedAt: string | null;
  }
  const byId = new Map<string, Sub>();
  const byAccount = new Map<string, Sub[]>();
  const remember = (s: Sub) => {
    byId.set(s.id, s);
    byAccount.set(s.account, [...(byAccount.get(s.account) ?? []), s]);
  };
  for (const s of loaded) {
    remember({ ...s, active: !s.removed, added: null, verifiedAt: null, removedAt: null });
  }

  const outbox: OutboxRow[] = [];
  const queue = (s: Sub, key: string, message: Pick<OutboxRow, 'notice' | 'verification'>) =>
    outbox.push({
      notice_id: key,
      subscription_id: s.id,
      account: s.account,
      channel: s.channel,
      ...message,
    });
  const timeline = [
    ...derived.subscriptionEvents.map((s) => ({ seq: s.seq, event: s.event, notice: null })),
    ...derived.notices
      .filter((n) => inserted.has(n.notice.id))
      .map((n) => ({ seq: n.seq, event: null, notice: n.notice })),
  ].sort((a, b) => a.seq - b.seq);

  for (const step of timeline) {
    const notice = step.notice;
    if (notice) {
      for (const s of byAccount.get(notice.account) ?? []) {
        if (s.active && s.verified) queue(s, notice.id, { notice, verification: null });
      }
      continue;
    }
    const e = step.event!;
    if (e.type === 'SubscriptionAdded') {
      const d = e.data;
      if (byId.has(d.id)) continue;
      const verified = verifiedOnAdding(d);
      const s: Sub = {
        id: d.id,
        account: d.account,
        channel: d.channel,
        active: true,
        added: { at: d.addedAt, verification: d.verification },
        verified,
        verifiedAt: verified ? d.addedAt : null,
        removedAt: null,
      };
      remember(s);
      const request = verificationRequest(d);
      if (request) queue(s, request.id, { notice: null, verification: request });
      continue;
    }
    const d = e.data;
    const s = byId.get(d.id);
    if (!s?.active || s.account !== d.account) continue;
    if (e.type === 'SubscriptionVerified') {
      if (s.verified) continue;
      s.verified = true;
      s.verifiedAt = e.data.verifiedAt;
    } else {
      s.active = false;
      s.removedAt = e.data.removedAt;
    }
  }
  const all = [...byId.values()];
  const stored = all.filter((s) => s.added === null);
  return {
    added: all.flatMap(({ added, ...s }) =>
      added === null
        ? []
        : [
            {
              id: s.id,
              account: s.account,
              channel: s.channel,
              verification: added.verification,
              added_at: added.at,
              verified_at: s.verifiedAt,
              removed_at: s.removedAt,
            },
          ],
    ),
    verified: stored.flatMap((s) =>
      s.verifiedAt === null ? [] : [{ id: s.id, verified_at: s.verifiedAt }],
    ),
    removed: stored.flatMap((s) =>
      s.removedAt === null ? [] : [{ id: s.id, removed_at: s.removedAt }],
    ),
    outbox,
  };
}
