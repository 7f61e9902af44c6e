/**
 * The notices derivation (projections/notices/derive-notices.ts) specified by example: given the
 * events already projected, when the next batch comes, then these notices, and only these.
 */
import { expect } from 'chai';
import type { NoticeEvent } from '../../../projections/notices/notice-events.js';
import type {
  AuctionClosedV5,
  OrderPlacedV1,
  SettlementFailureReason,
  TradeSettledV1,
} from '../../../src/domain/events.js';
import { SETTLEMENT_RECORDING_MARGIN_SECONDS } from '../../../src/domain/notices.js';
import {
  orderCancelled,
  orderPlaced,
  preSignatureSet,
  tradeSettled,
} from '../../integration/projections/fixtures.js';
import {
  auction,
  DEADLINE_AFTER,
  iso,
  VALID_TO,
} from '../../integration/projections/notice-projection.js';
import { noticesSpec } from '../../support/notices-spec.js';

const { given } = noticesSpec;

/** An order valid until VALID_TO: 1000 of the sell token (10^21 atoms) for at least 2000. */
function order(n: number, overrides: Partial<OrderPlacedV1['order']> = {}): OrderPlacedV1 {
  const base = orderPlaced(n);
  return orderPlaced(n, { order: { ...base.order, validTo: VALID_TO, ...overrides } });
}
const FULL = { sell: 10n ** 21n, buy: 2000n };
const TRADED_AT = '2025-01-01T01:00:00.000Z';

const placed = (o: OrderPlacedV1): NoticeEvent => ({ type: 'OrderPlaced', data: o });
const traded = (t: TradeSettledV1): NoticeEvent => ({ type: 'TradeSettled', data: t });
const closed = (a: AuctionClosedV5): NoticeEvent => ({ type: 'AuctionClosed', data: a });
const cancelled = (o: OrderPlacedV1, source: 'api' | 'chain'): NoticeEvent => ({
  type: 'OrderCancelled',
  data: orderCancelled(o, source),
});
const reverted = (t: TradeSettledV1): NoticeEvent => ({
  type: 'ChainFactReverted',
  data: {
    network: t.network,
    revertedEventId: 'trade',
    reverted: { type: 'TradeSettled', data: t },
    reason: 'reorg',
  },
});
const failed = (a: AuctionClosedV5, reason: SettlementFailureReason): NoticeEvent => ({
  type: 'SettlementFailed',
  data: {
    network: a.network,
    auctionId: a.id,
    rank: 1,
    txHash: null,
    reason,
    detail: 'spec',
    failedAt: a.deadline,
  },
});
const shortOfBalance = (cut: number, o: OrderPlacedV1): AuctionClosedV5 => ({
  ...auction(cut),
  filtered: [{ uid: o.uid, reason: 'InsufficientBalance' }],
});

describe('notices derivation', () => {
  describe('trades', () => {
    it('tells the owner an order was filled, with its executed amount, at the trade', () => {
      const o = order(1);
      const [filled] = given(placed(o))
        .when(traded(tradeSettled(o, FULL)))
        .then([
          { type: 'order_filled', order: o.uid, at: TRADED_AT, executedAmount: String(FULL.sell) },
        ]);
      expect(filled!.account).to.equal(o.owner);
      expect(filled!.message).to.match(/was filled: .* in total\.$/);
    });

    it('adds a price improvement when the trade beat the limit price', () => {
      const o = order(2);
      given(placed(o))
        .when(traded(tradeSettled(o, { sell: FULL.sell, buy: 2100n })))
        .then([
          { type: 'order_filled', order: o.uid, at: TRADED_AT, executedAmount: String(FULL.sell) },
          {
            type: 'price_improvement',
            order: o.uid,
            at: TRADED_AT,
            executedAmount: String(FULL.sell),
            surplus: '100',
            surplusToken: o.order.buyToken,
          },
        ]);
    });

    it('tells of each part of a partly fillable order, then of the fill that completes it', () => {
      const o = order(3, { partiallyFillable: true });
      const half = { sell: FULL.sell / 2n, buy: FULL.buy / 2n };
      given(placed(o), traded(tradeSettled(o, half, 100)))
        .when(traded(tradeSettled(o, half, 101)))
        .then([
          { type: 'order_filled', order: o.uid, at: TRADED_AT, executedAmount: String(FULL.sell) },
        ]);
      given(placed(o))
        .when(traded(tradeSettled(o, half, 100)))
        .then([
          {
            type: 'order_partially_filled',
            order: o.uid,
            at: TRADED_AT,
            executedAmount: String(half.sell),
          },
        ]);
    });

    it('takes nothing back on a reorg, and tells again of a trade recorded again elsewhere', () => {
      const o = order(4);
      const first = tradeSettled(o, FULL, 100);
      given(placed(o), traded(first)).when(reverted(first)).thenNothing();
      given(placed(o), traded(first), reverted(first))
        .when(traded(tradeSettled(o, FULL, 102)))
        .then([
          { type: 'order_filled', order: o.uid, at: TRADED_AT, executedAmount: String(FULL.sell) },
        ]);
    });

    it('ignores the trades of an order never placed', () => {
      given()
        .when(traded(tradeSettled(order(5), FULL)))
        .thenNothing();
    });
  });

  describe('cancellations', () => {
    it('tells of the first cancellation only, and of none once the order is filled', () => {
      const o = order(6);
      given(placed(o))
        .when(cancelled(o, 'api'), cancelled(o, 'chain'))
        .then([{ type: 'order_cancelled', order: o.uid, at: '2025-01-01T02:00:00.000Z' }]);
      given(placed(o), traded(tradeSettled(o, FULL)))
        .when(cancelled(o, 'api'))
        .thenNothing();
    });
  });

  describe('expiry by the ledger clock', () => {
    it('expires an open order at the first auction cut past its validTo, once', () => {
      const o = order(7);
      const atValidTo = auction(VALID_TO);
      const past = auction(VALID_TO + 1);
      given(placed(o), closed(atValidTo))
        .when(closed(past), closed(auction(VALID_TO + 2)))
        .then([{ type: 'order_expired', order: o.uid, at: iso(VALID_TO + 1), auctionId: past.id }]);
    });

    it('holds an order a winning solution may still fill until that settlement fails', () => {
      const o = order(8);
      const won = auction(VALID_TO - 40, [o]);
      const heldUntil = VALID_TO - 40 + DEADLINE_AFTER + SETTLEMENT_RECORDING_MARGIN_SECONDS;
      given(placed(o), closed(won))
        .when(closed(auction(VALID_TO + 1)))
        .thenNothing();
      // A timed-out transaction may still land: the hold stays until its margin passes.
      given(placed(o), closed(won), failed(won, 'timedOut'))
        .when(closed(auction(heldUntil)))
        .thenNothing();
      const after = auction(VALID_TO + 2);
      given(placed(o), closed(won), failed(won, 'reverted'))
        .when(closed(after))
        .then([
          { type: 'order_expired', order: o.uid, at: iso(VALID_TO + 2), auctionId: after.id },
        ]);
    });
  });

  describe('insufficient balance', () => {
    it('tells once per episode, which ends when an auction takes the order in', () => {
      const o = order(9);
      const first = shortOfBalance(VALID_TO - 100, o);
      given(placed(o))
        .when(closed(first), closed(shortOfBalance(VALID_TO - 90, o)))
        .then([
          {
            type: 'insufficient_balance',
            order: o.uid,
            at: iso(VALID_TO - 100),
            auctionId: first.id,
          },
        ]);
      const again = shortOfBalance(VALID_TO - 70, o);
      given(
        placed(o),
        closed(first),
        closed({ ...auction(VALID_TO - 80), orders: [{ uid: o.uid, executed: '0' }] }),
      )
        .when(closed(again))
        .then([
          {
            type: 'insufficient_balance',
            order: o.uid,
            at: iso(VALID_TO - 70),
            auctionId: again.id,
          },
        ]);
    });
  });

  describe('pre-signed orders', () => {
    it('tell nothing until a pre-signature of theirs is on chain', () => {
      const o = orderPlaced(10, { signingScheme: 'presign' });
      given(placed(o))
        .when(traded(tradeSettled(o, FULL)))
        .thenNothing();
      given(placed(o), { type: 'PreSignatureSet', data: preSignatureSet(o, true, 90) })
        .when(traded(tradeSettled(o, FULL)))
        .then([
          { type: 'order_filled', order: o.uid, at: TRADED_AT, executedAmount: String(FULL.sell) },
        ]);
    });
  });
});
