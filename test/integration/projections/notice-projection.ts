/**
 * The notices projector's own `handle` on a real Postgres, batch by batch as a test splits the
 * events, and the notices it wrote: its load statements are part of what is tested.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { inOrder } from '../../../projections/in-order.js';
import { noticesProjector } from '../../../projections/notices/projector.js';
import {
  EVENT_VERSIONS,
  type AuctionClosedV5,
  type DomainEvent,
  type OrderPlacedV1,
} from '../../../src/domain/events.js';
import type { RecordedEvent } from '../../../src/ledger/port.js';
import { address, type TestDatabase } from './fixtures.js';

/** The orders' validTo (2025-01-01T01:00:00Z), which the tests' auctions are cut around. */
export const VALID_TO = Date.UTC(2025, 0, 1, 1, 0, 0) / 1000;

/** Auctions settle by their cut plus this (as the autopilot's SETTLEMENT_DEADLINE_MS would). */
export const DEADLINE_AFTER = 60;

export const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

let lastAuction = 0;
export const lastAuctionId = () => lastAuction;
/** An auction of mainnet cut at `cut`; `won`: the orders of its one winning solution. */
export function auction(cut: number, won: readonly OrderPlacedV1[] = []): AuctionClosedV5 {
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

export const place = (p: OrderPlacedV1): DomainEvent => ({ type: 'OrderPlaced', data: p });
export const close = (a: AuctionClosedV5): DomainEvent => ({ type: 'AuctionClosed', data: a });

export interface Noticed {
  uid: string;
  type: string;
  timestamp: string;
  auctionId: number | null;
  message: string;
}

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

const projector = noticesProjector();

/** Projects `events` into a fresh schema, in batches of the given sizes (the last repeats). */
export async function projectNotices(
  t: TestDatabase,
  events: readonly DomainEvent[],
  sizes: readonly number[],
): Promise<string> {
  const schema = `notices_${randomUUID().slice(0, 8)}`;
  await t.db.raw(`CREATE SCHEMA "${schema}"`);
  await projector.migrate(t.db, schema);
  const all = recorded(events);
  for (let at = 0, i = 0; at < all.length; i++) {
    const size = sizes[Math.min(i, sizes.length - 1)]!;
    const batch = all.slice(at, at + size);
    await t.db.transaction((trx) => projector.handle(inOrder(trx), batch, schema));
    at += size;
  }
  return schema;
}

export async function noticed(t: TestDatabase, schema: string): Promise<Noticed[]> {
  const { rows } = await t.db.raw<{
    rows: { type: string; timestamp: Date; metadata: Record<string, unknown>; message: string }[];
  }>(`SELECT type, timestamp, metadata, message FROM "${schema}".notices ORDER BY timestamp, type`);
  return rows.map((r) => ({
    uid: r.metadata['orderId'] as string,
    type: r.type,
    timestamp: r.timestamp.toISOString(),
    auctionId: (r.metadata['auctionId'] as number | undefined) ?? null,
    message: r.message,
  }));
}

/** The notices of `events` projected one by one, checked equal to those of one batch. */
export async function noticesOf(
  t: TestDatabase,
  events: readonly DomainEvent[],
): Promise<Noticed[]> {
  const apart = await noticed(t, await projectNotices(t, events, [1]));
  expect(await noticed(t, await projectNotices(t, events, [events.length]))).to.deep.equal(apart);
  return apart;
}
