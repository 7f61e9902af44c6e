/**
 * What the notices projector keeps of each placed order between batches (a `notice_orders` row),
 * in the form the derivation works on, and the questions the rules ask of it.
 */
import type { Address, OrderKind, OrderPlacedV1, OrderUid } from '../../src/domain/events.js';
import type { NoticeOrder } from '../../src/domain/notices.js';
import { isFilled, type ExecutedSums } from '../../src/domain/trade-execution.js';
import type { NoticeOrderRow } from './rows.js';

export interface OrderState extends NoticeOrder {
  partiallyFillable: boolean;
  validTo: number;
  executed: ExecutedSums;
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

export interface Hold {
  auction: number;
  rank: number;
  /** Unix seconds: the auction's deadline plus SETTLEMENT_RECORDING_MARGIN_SECONDS. */
  until: number;
}

export function fromRow(r: NoticeOrderRow): OrderState {
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

/** A newly placed order; `presigned`: a signed pre-signature of its UID is on chain already. */
export function placedOrder(d: OrderPlacedV1, presigned: boolean): OrderState {
  return {
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
    presigned,
  };
}

export function toRow(o: OrderState): NoticeOrderRow {
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

export const filled = (o: OrderState) => isFilled(o, o.executed);
export const cancelled = (o: OrderState) => o.apiCancelled || o.chainInvalidations > 0;
/** Neither filled, cancelled nor expired: it can expire, and take part in auctions. */
export const isOpen = (o: OrderState) => !o.expired && !filled(o) && !cancelled(o);
/** Its owner is known to have placed it: signed, or pre-signed on chain. */
export const authorised = (o: OrderState) => !o.presign || o.presigned;

/** Held at a cut at `cut` (Unix seconds): a winning settlement may still fill the order. */
export const heldAt = (o: OrderState, cut: number) => o.hold !== null && cut <= o.hold.until;
/** A cut after this (Unix seconds) may expire the order, as things stand. */
export const expiresAfter = (o: OrderState) => Math.max(o.validTo, o.hold?.until ?? o.validTo);
