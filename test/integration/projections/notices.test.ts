/**
 * The notices projector's expiry of orders in a winning solution (projections/notices/batch.ts):
 * their expiry waits while the solution's settlement may still land. The projector's own
 * `handle` runs on a real Postgres, batch by batch as the tests split the events, so its load
 * statement is part of what is tested: the same events split differently give the same rows.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { noticesProjector } from '../../../projections/notices/projector.js';
import {
  EVENT_VERSIONS,
  type AuctionClosedV5,
  type DomainEvent,
  type OrderPlacedV1,
  type SettlementFailureReason,
} from '../../../src/domain/events.js';
import { SETTLEMENT_RECORDING_MARGIN_SECONDS } from '../../../src/domain/notices.js';
import type { RecordedEvent } from '../../../src/ledger/port.js';
import {
  address,
  openTestDatabase,
  orderPlaced,
  tableContents,
  tradeSettled,
  type TestDatabase,
} from './fixtures.js';

/** Every order here is valid to this second (2025-01-01T01:00:00Z). */
const VALID_TO = Date.UTC(2025, 0, 1, 1, 0, 0) / 1000;
/** Auctions settle by their cut plus this (as the autopilot's SETTLEMENT_DEADLINE_MS would). */
const DEADLINE_AFTER = 60;
/** The win every test starts from: cut 40 s before validTo, so the hold ends here. */
const WON_AT = VALID_TO - 40;
const HELD_UNTIL = WON_AT + DEADLINE_AFTER + SETTLEMENT_RECORDING_MARGIN_SECONDS;
const FULL = { sell: 10n ** 21n, buy: 2000n };

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

function placed(n: number, partiallyFillable = false): OrderPlacedV1 {
  const base = orderPlaced(n);
  return orderPlaced(n, { order: { ...base.order, validTo: VALID_TO, partiallyFillable } });
}

let lastAuction = 0;
/** An auction of mainnet cut at `cut`; `won`: the orders of its one winning solution. */
function auction(cut: number, won: readonly OrderPlacedV1[] = []): AuctionClosedV5 {
  const id = ++lastAuction;
  return {
    network: 'mainnet',
    id,
    block: 1000 + id,
    cutAt: iso(cut),
    deadline: iso(cut + DEADLINE_AFTER),
    deadlineBlock: 1005 + id,
    base: null,
    left: [],
    unpriced: [],
    unfiltered: [],
    orders: won.map((p) => ({ uid: p.uid, executed: '0' })),
    prices: {},
    filtered: [],
    solutions:
      won.length === 0
        ? []
        : [
            {
              solver: 'builtin',
              solverAddress: address(50),
              score: '1',
              rank: 1,
              isWinner: true,
              filteredOut: false,
              referenceScore: '0',
              clearingPrices: {},
              orders: won.map((p) => ({
                uid: p.uid,
                sellToken: p.order.sellToken,
                buyToken: p.order.buyToken,
                executedAmount: p.order.sellAmount,
                sellAmount: p.order.sellAmount,
                buyAmount: p.order.buyAmount,
                fee: '0',
              })),
              solutionId: 0,
              preInteractions: [],
              interactions: [],
              postInteractions: [],
            },
          ],
  };
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

const place = (p: OrderPlacedV1): DomainEvent => ({ type: 'OrderPlaced', data: p });
const close = (a: AuctionClosedV5): DomainEvent => ({ type: 'AuctionClosed', data: a });

function recorded(events: readonly DomainEvent[]): RecordedEvent[] {
  return events.map((e, i) => ({
    id: randomUUID(),
    stream: 'test',
    revision: BigInt(i),
    position: String(i),
    type: e.type,
    version: EVENT_VERSIONS[e.type],
    data: e.data,
    metadata: {},
    recordedAt: new Date(0),
  }));
}

interface Noticed {
  uid: string;
  type: string;
  timestamp: string;
  auctionId: number | null;
  message: string;
}

describe('projections: notices of orders in a winning solution', function () {
  this.timeout(120_000);
  let t: TestDatabase;
  const projector = noticesProjector();

  before(async () => {
    t = await openTestDatabase();
  });
  after(async () => {
    await t?.close();
  });

  /** Projects `events` into a fresh schema, in batches of the given sizes (the last repeats). */
  async function project(events: readonly DomainEvent[], sizes: readonly number[]) {
    const schema = `notices_${randomUUID().slice(0, 8)}`;
    await t.db.raw(`CREATE SCHEMA "${schema}"`);
    await projector.migrate(t.db, schema);
    const all = recorded(events);
    for (let at = 0, i = 0; at < all.length; i++) {
      const size = sizes[Math.min(i, sizes.length - 1)]!;
      const batch = all.slice(at, at + size);
      await t.db.transaction((trx) => projector.handle(trx, batch, schema));
      at += size;
    }
    return schema;
  }

  async function noticed(schema: string): Promise<Noticed[]> {
    const { rows } = await t.db.raw<{
      rows: { type: string; timestamp: Date; metadata: Record<string, unknown>; message: string }[];
    }>(
      `SELECT type, timestamp, metadata, message FROM "${schema}".notices ORDER BY timestamp, type`,
    );
    return rows.map((r) => ({
      uid: r.metadata['orderId'] as string,
      type: r.type,
      timestamp: r.timestamp.toISOString(),
      auctionId: (r.metadata['auctionId'] as number | undefined) ?? null,
      message: r.message,
    }));
  }

  /** The notices of `events` projected one by one, checked equal to those of one batch. */
  async function noticesOf(events: readonly DomainEvent[]): Promise<Noticed[]> {
    const apart = await noticed(await project(events, [1]));
    expect(await noticed(await project(events, [events.length]))).to.deep.equal(apart);
    return apart;
  }

  const kinds = (list: readonly Noticed[]) => list.map((n) => n.type);

  it('notices only the fill of an order whose fill arrives after a cut past its validTo', async () => {
    const order = placed(1);
    const won = auction(WON_AT, [order]);
    const list = await noticesOf([
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
    const list = await noticesOf([
      place(order),
      close(won),
      close(auction(VALID_TO + 12)),
      failed(won, 'reverted'),
      close(auction(VALID_TO + 24)),
    ]);
    expect(list).to.have.length(1);
    expect(list[0]).to.include({ type: 'order_expired', timestamp: iso(VALID_TO + 24) });
    expect(list[0]!.auctionId).to.equal(lastAuction);
    expect(list[0]!.message).to.match(/expired without being filled\.$/);
  });

  it('expires the order at the first cut after the deadline plus the margin, with no verdict', async () => {
    const order = placed(3);
    const list = await noticesOf([
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
    const list = await noticesOf([
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
    const list = await noticesOf([
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
    const list = await noticesOf([
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
    const list = await noticesOf([
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
      const schema = await project(events, sizes);
      built.push([
        ...(await tableContents(t.db, schema, 'notices')),
        ...(await tableContents(t.db, schema, 'notice_orders')),
      ]);
    }
    for (const rows of built.slice(1)) expect(rows).to.deep.equal(built[0]);
    const list = await noticesOf(events);
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
