/**
 * GET /api/v1/auction's query: the latest auction of a network with its orders whole, built from
 * the auctions and orders read models once per auction and served from then on, unless some
 * order it names was not in the orders read model yet.
 */
import { inOrder } from '../../../projections/in-order.js';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import knex, { type Knex } from 'knex';
import { auctionsProjector } from '../../../projections/auctions/projector.js';
import { ordersProjector } from '../../../projections/orders/projector.js';
import type { Projector } from '../../../projections/projector.js';
import {
  EVENT_VERSIONS,
  type AuctionClosedV5,
  type DomainEvent,
  type OrderUid,
} from '../../../src/domain/events.js';
import type { RecordedEvent } from '../../../src/ledger/port.js';
import {
  changesSince,
  wholeCut,
  type CutChanges,
  type CutRecord,
} from '../../../src/domain/auction-record.js';
import { createAuctionQueries, type AuctionQueries } from '../../../src/queries/auctions.js';
import { placed } from '../../property/arbitraries.js';
import { freshDatabase } from '../../support/postgres.js';
import { statementsNaming } from '../../support/statements.js';

const uid = (n: number): OrderUid => `0x${n.toString(16).padStart(112, '0')}`;

let position = 0;
function recorded({ type, data }: DomainEvent): RecordedEvent {
  return {
    id: randomUUID(),
    stream: `test-${randomUUID()}`,
    revision: 0n,
    position: String(++position),
    type,
    version: EVENT_VERSIONS[type],
    data,
    metadata: {},
    recordedAt: new Date(),
  };
}

function auction(id: number, orders: OrderUid[]): DomainEvent {
  const data: AuctionClosedV5 = {
    network: 'mainnet',
    id,
    block: 100 + id,
    cutAt: '2025-01-01T00:00:00.000Z',
    deadline: '2025-01-01T00:00:30.000Z',
    deadlineBlock: 105 + id,
    base: null,
    left: [],
    unpriced: [],
    unfiltered: [],
    orders: orders.map((u, i) => ({ uid: u, executed: String(i) })),
    prices: { [`0x${'aa'.repeat(20)}`]: '1000000000000000000' },
    filtered: [],
    solutions: [],
  };
  return { type: 'AuctionClosed', data };
}

/** How many statements reading the orders read model `run` sends. */
async function orderReads<T>(run: () => Promise<T>): Promise<{ result: T; reads: number }> {
  const { result, texts } = await statementsNaming('"read"."orders"', run);
  return { result, reads: texts.length };
}

describe('auction queries: the latest auction, whole', () => {
  let db: Knex;
  let queries: AuctionQueries;
  const apply = async (projector: Projector, ...events: DomainEvent[]) =>
    projector.handle(inOrder(db), events.map(recorded), 'read');

  before(async () => {
    db = knex({ client: 'pg', connection: await freshDatabase(), pool: { min: 0, max: 4 } });
    await db.raw('CREATE SCHEMA read');
    for (const projector of [ordersProjector(), auctionsProjector()]) {
      await projector.migrate(db, 'read');
    }
  });
  after(() => db.destroy());
  beforeEach(() => {
    queries = createAuctionQueries(db);
  });

  it('builds an auction once, serves it again without reading the orders, and moves on to a newer one', async () => {
    await apply(ordersProjector(), placed(uid(1)), placed(uid(2)));
    await apply(auctionsProjector(), auction(1, [uid(2), uid(1)]));
    const first = await orderReads(() => queries.latest('mainnet'));
    expect(first.reads).to.equal(1);
    expect(first.result!.id).to.equal(1);
    expect(first.result!.block).to.equal(101);
    expect(first.result!.orders.map((o) => [o.uid, o.executed])).to.deep.equal([
      [uid(2), '0'],
      [uid(1), '1'],
    ]);
    const again = await orderReads(() => queries.latest('mainnet'));
    expect(again).to.deep.equal({ result: first.result, reads: 0 });

    await apply(auctionsProjector(), auction(2, [uid(1)]));
    const newer = await orderReads(() => queries.latest('mainnet'));
    expect(newer.reads).to.equal(1);
    expect(newer.result!.orders.map((o) => o.uid)).to.deep.equal([uid(1)]);
    expect(await queries.latest('gnosis')).to.equal(null);
  });

  it('serves an auction naming an order the orders read model lacks without it, and builds it again until whole', async () => {
    await apply(auctionsProjector(), auction(3, [uid(3), uid(4)]));
    await apply(ordersProjector(), placed(uid(3)));
    const partial = await orderReads(() => queries.latest('mainnet'));
    expect(partial.result!.orders.map((o) => o.uid)).to.deep.equal([uid(3)]);

    await apply(ordersProjector(), placed(uid(4)));
    const whole = await orderReads(() => queries.latest('mainnet'));
    expect(whole.reads).to.equal(1);
    expect(whole.result!.orders.map((o) => o.uid)).to.deep.equal([uid(3), uid(4)]);
    expect((await orderReads(() => queries.latest('mainnet'))).reads).to.equal(0);
  });

  it('serves an auction that recorded only its changes whole, its base projected before or in the same batch', async () => {
    await apply(ordersProjector(), ...[5, 6, 7, 8].map((n) => placed(uid(n))));
    const price = (p: string) => ({ [`0x${'aa'.repeat(20)}`]: p });
    const whole: CutRecord = {
      orders: [5, 6, 7].map((n) => ({ uid: uid(n), executed: '0' })),
      prices: price('1'),
      filtered: [{ uid: uid(9), reason: 'DustOrder' }],
    };
    const later: CutRecord = {
      orders: [
        { uid: uid(5), executed: '3' },
        { uid: uid(7), executed: '0' },
        { uid: uid(8), executed: '0' },
      ],
      prices: price('2'),
      filtered: [],
    };
    const last: CutRecord = { ...later, orders: later.orders.slice(1) };
    const recordedAs = (id: number, changes: CutChanges): DomainEvent => {
      const { data } = auction(id, []) as { data: AuctionClosedV5 };
      return {
        type: 'AuctionClosed',
        data: {
          ...data,
          ...changes,
          orders: [...changes.orders],
          prices: { ...changes.prices },
          filtered: [...changes.filtered],
        },
      };
    };
    await apply(auctionsProjector(), recordedAs(10, wholeCut(whole)));
    await apply(
      auctionsProjector(),
      recordedAs(11, changesSince({ id: 10, cut: whole }, later)),
      recordedAs(12, changesSince({ id: 11, cut: later }, last)),
    );
    const served = await queries.latest('mainnet');
    expect(served!.id).to.equal(12);
    expect(served!.orders.map((o) => [o.uid, o.executed])).to.deep.equal([
      [uid(7), '0'],
      [uid(8), '0'],
    ]);
    expect(served!.prices).to.deep.equal(price('2'));
    const { rows } = await db.raw(
      `SELECT id, order_uids, order_executed::text[] AS executed, filtered_uids FROM read.auctions
        WHERE id IN (11, 12) ORDER BY id`,
    );
    expect(rows).to.deep.equal([
      {
        id: '11',
        order_uids: [uid(5), uid(7), uid(8)],
        executed: ['3', '0', '0'],
        filtered_uids: [],
      },
      { id: '12', order_uids: [uid(7), uid(8)], executed: ['0', '0'], filtered_uids: [] },
    ]);
  });
});
