/**
 * The notices projector's expiry of orders in a winning solution (projections/notices/batch.ts):
 * their expiry waits while the solution's settlement may still land. The same events split
 * differently into batches give the same rows (./notice-projection.ts).
 */
import { expect } from 'chai';
import type {
  AuctionClosedV5,
  DomainEvent,
  OrderPlacedV1,
  SettlementFailureReason,
} from '../../../src/domain/events.js';
import { SETTLEMENT_RECORDING_MARGIN_SECONDS } from '../../../src/domain/notices.js';
import {
  suiteTestDatabase,
  orderCancelled,
  orderPlaced,
  tableContents,
  tradeSettled,
} from './fixtures.js';
import {
  auction,
  close,
  DEADLINE_AFTER,
  iso,
  lastAuctionId,
  noticesOf,
  place,
  projectNotices,
  type Noticed,
  VALID_TO,
} from './notice-projection.js';

/** The win every test starts from: cut 40 s before validTo, so the hold ends here. */
const WON_AT = VALID_TO - 40;
const HELD_UNTIL = WON_AT + DEADLINE_AFTER + SETTLEMENT_RECORDING_MARGIN_SECONDS;
const FULL = { sell: 10n ** 21n, buy: 2000n };

function placed(n: number, partiallyFillable = false): OrderPlacedV1 {
  const base = orderPlaced(n);
  return orderPlaced(n, { order: { ...base.order, validTo: VALID_TO, partiallyFillable } });
}

const failed = (a: AuctionClosedV5, reason: SettlementFailureReason): DomainEvent => ({
  type: 'SettlementFailed',
  data: {
    network: a.network,
    auctionId: a.id,
    rank: 1,
    txHash: reason === 'simulationFailed' ? null : `0x${'ab'.repeat(32)}`,
    reason,
    detail: 'test',
    failedAt: a.deadline,
  },
});

describe('projections: notices of orders in a winning solution', function () {
  this.timeout(120_000);
  const database = suiteTestDatabase();

  const kinds = (list: readonly Noticed[]) => list.map((n) => n.type);

  it('notices only the fill of an order whose fill arrives after a cut past its validTo', async () => {
    const order = placed(1);
    const won = auction(WON_AT, [order]);
    const list = await noticesOf(database(), [
      place(order),
      close(won),
      // Past validTo, but the settlement may still land: no expiry.
      close(auction(VALID_TO + 12)),
      close(auction(VALID_TO + 24)),
      { type: 'TradeSettled', data: tradeSettled(order, FULL) },
      close(auction(HELD_UNTIL + 1)),
    ]);
    expect(kinds(list)).to.deep.equal(['order_filled']);
  });

  it('expires the order at the first cut after its settlement is recorded failed', async () => {
    const order = placed(2);
    const won = auction(WON_AT, [order]);
    const list = await noticesOf(database(), [
      place(order),
      close(won),
      close(auction(VALID_TO + 12)),
      failed(won, 'reverted'),
      close(auction(VALID_TO + 24)),
    ]);
    expect(list).to.have.length(1);
    expect(list[0]).to.include({ type: 'order_expired', timestamp: iso(VALID_TO + 24) });
    expect(list[0]!.auctionId).to.equal(lastAuctionId());
    expect(list[0]!.message).to.match(/expired without being filled\.$/);
  });

  it('expires the order at the first cut after the deadline plus the margin, with no verdict', async () => {
    const order = placed(3);
    const list = await noticesOf(database(), [
      place(order),
      close(auction(WON_AT, [order])),
      close(auction(VALID_TO + 12)),
      // The last second of the hold.
      close(auction(HELD_UNTIL)),
      close(auction(HELD_UNTIL + 1)),
    ]);
    expect(list.map((n) => [n.type, n.timestamp])).to.deep.equal([
      ['order_expired', iso(HELD_UNTIL + 1)],
    ]);
  });

  it('keeps holding after a time-out (the transaction may still land), until the margin', async () => {
    const order = placed(4);
    const won = auction(WON_AT, [order]);
    const list = await noticesOf(database(), [
      place(order),
      close(won),
      failed(won, 'timedOut'),
      close(auction(VALID_TO + 12)),
      close(auction(HELD_UNTIL + 1)),
    ]);
    expect(list.map((n) => [n.type, n.timestamp])).to.deep.equal([
      ['order_expired', iso(HELD_UNTIL + 1)],
    ]);
  });

  it('expires an order in no winning solution at the first cut past its validTo, as before', async () => {
    const order = placed(5);
    const list = await noticesOf(database(), [
      place(order),
      // Auctioned, but nobody won with it.
      close({ ...auction(WON_AT), orders: [{ uid: order.uid, executed: '0' }] }),
      close(auction(VALID_TO)),
      close(auction(VALID_TO + 1)),
    ]);
    expect(list.map((n) => [n.type, n.timestamp])).to.deep.equal([
      ['order_expired', iso(VALID_TO + 1)],
    ]);
  });

  it('expires a partly filled order at the next cut after its fill, with the part filled', async () => {
    const order = placed(6, true);
    const list = await noticesOf(database(), [
      place(order),
      close(auction(WON_AT, [order])),
      close(auction(VALID_TO + 12)),
      { type: 'TradeSettled', data: tradeSettled(order, { sell: FULL.sell / 4n, buy: 500n }) },
      close(auction(VALID_TO + 24)),
    ]);
    expect(kinds(list)).to.deep.equal(['order_partially_filled', 'order_expired']);
    expect(list[1]!.timestamp).to.equal(iso(VALID_TO + 24));
    expect(list[1]!.message).to.match(
      /expired with 250000000000000000000 of 1000000000000000000000 atoms of 0x[0-9a-f]{40} filled\.$/,
    );
  });

  it('a later win holds the order anew: the earlier solution failing releases nothing', async () => {
    const order = placed(7);
    const first = auction(WON_AT - 60, [order]);
    const list = await noticesOf(database(), [
      place(order),
      close(first),
      failed(first, 'simulationFailed'),
      close(auction(WON_AT, [order])),
      // A late record of the first solution's failure, again.
      failed(first, 'reverted'),
      close(auction(VALID_TO + 12)),
      { type: 'TradeSettled', data: tradeSettled(order, FULL) },
    ]);
    expect(kinds(list)).to.deep.equal(['order_filled']);
  });

  it('leaves a cancelled order as it was when its solution fails, however the events are batched', async () => {
    const order = placed(30);
    const won = auction(WON_AT, [order]);
    const events: DomainEvent[] = [
      place(order),
      close(won),
      { type: 'OrderCancelled', data: orderCancelled(order, 'api', iso(WON_AT + 1)) },
      failed(won, 'simulationFailed'),
    ];
    const rows = async (sizes: number[]) =>
      tableContents(
        database().db,
        await projectNotices(database(), events, sizes),
        'notice_orders',
      );
    const apart = await rows([1]);
    expect(await rows([events.length])).to.deep.equal(apart);
    expect(await rows([3, 1])).to.deep.equal(apart);
  });

  it('gives the same rows however the events are split into batches', async () => {
    const orders = [1, 2, 3, 4, 5].map((n) => placed(20 + n, n % 2 === 0));
    const [filled, failing, unheard, partial, never] = orders as [
      OrderPlacedV1,
      OrderPlacedV1,
      OrderPlacedV1,
      OrderPlacedV1,
      OrderPlacedV1,
    ];
    const won = auction(WON_AT, [filled, failing, partial]);
    // Its settlement is never heard of: held until a cut after its deadline plus the margin.
    const silent = auction(WON_AT + 1, [unheard]);
    const events: DomainEvent[] = [
      ...orders.map(place),
      close({ ...won, orders: [...won.orders, { uid: never.uid, executed: '0' }] }),
      close(silent),
      close(auction(VALID_TO + 12)),
      { type: 'TradeSettled', data: tradeSettled(filled, FULL, 200, 0) },
      { type: 'TradeSettled', data: tradeSettled(partial, { sell: 1n, buy: 1n }, 200, 1) },
      close(auction(VALID_TO + 24)),
      failed(won, 'reverted'),
      close(auction(VALID_TO + 36)),
      close(auction(HELD_UNTIL + 1)),
      close(auction(HELD_UNTIL + 2)),
    ];
    const built: string[][] = [];
    for (const sizes of [[events.length], [1], [2], [3, 1, 4], [5, 7]]) {
      const schema = await projectNotices(database(), events, sizes);
      built.push([
        ...(await tableContents(database().db, schema, 'notices')),
        ...(await tableContents(database().db, schema, 'notice_orders')),
      ]);
    }
    for (const rows of built.slice(1)) expect(rows).to.deep.equal(built[0]);
    const list = await noticesOf(database(), events);
    const of = (p: OrderPlacedV1) => list.filter((n) => n.uid === p.uid).map((n) => n.type);
    expect(of(filled)).to.deep.equal(['order_filled']);
    expect(of(partial)).to.deep.equal(['order_partially_filled', 'order_expired']);
    expect(of(failing)).to.deep.equal(['order_expired']);
    expect(of(unheard)).to.deep.equal(['order_expired']);
    expect(of(never)).to.deep.equal(['order_expired']);
    const expiredAt = (p: OrderPlacedV1) =>
      list.find((n) => n.uid === p.uid && n.type === 'order_expired')!.timestamp;
    expect(expiredAt(never)).to.equal(iso(VALID_TO + 12));
    expect(expiredAt(partial)).to.equal(iso(VALID_TO + 24));
    expect(expiredAt(failing)).to.equal(iso(VALID_TO + 36));
    expect(expiredAt(unheard)).to.equal(iso(HELD_UNTIL + 2));
  });
});
