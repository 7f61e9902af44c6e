/**
 * Shared by the projection tests and the replay property test: a real Postgres ledger on a fresh
 * database, a knex handle on the same database, and builders for the events the projectors read.
 */
import { randomUUID } from 'node:crypto';
import knex, { type Knex } from 'knex';
import pg from 'pg';
import {
  EVENT_VERSIONS,
  streamOf as domainStreamOf,
  type AppDataRegisteredV1,
  type ChainCoordinates,
  type DomainEvent,
  type EventPayloads,
  type EventType,
  type OrderCancelledV1,
  type OrderPlacedV1,
  type OrderUid,
  type PreSignatureSetV1,
  type TradeSettledV1,
} from '../../../src/domain/events.js';
import { dedicatedConnectionConfig } from '../../../projections/connection.js';
import { createPostgresLedger, type PostgresLedger } from '../../../src/ledger/postgres.js';
import { leadershipOn } from '../../../src/postgres/leadership.js';
import { migratedDatabase } from '../../support/postgres.js';
import { suiteResource } from '../../support/suite-resource.js';

export interface TestDatabase {
  url: string;
  ledger: PostgresLedger;
  db: Knex;
  close(): Promise<void>;
}

export async function openTestDatabase(): Promise<TestDatabase> {
  const url = await migratedDatabase();
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  // Connections a test terminates on purpose must not crash the run.
  pool.on('error', () => undefined);
  const ledger = createPostgresLedger({ pool, pollIntervalMs: 50 });
  const db = knex({
    client: 'pg',
    connection: url,
    pool: { min: 0, max: 8 },
    // The crash tests kill connections on purpose, and a failing replay aborts the connections
    // it was still waiting for: knex would warn about each one.
    log: {
      warn: (message: string) =>
        void (
          message.startsWith('Connection Error') ||
          message.startsWith('Acquire connection error: Error: aborted') ||
          console.warn(message)
        ),
    },
  });
  return {
    url,
    ledger,
    db,
    close: async () => {
      await ledger.close();
      await pool.end();
      await db.destroy();
    },
  };
}

/** A test database for the whole calling suite: opened before its tests, closed after them. */
export const suiteTestDatabase = (): (() => TestDatabase) =>
  suiteResource(openTestDatabase, (t) => t.close());

/**
 * What `startProjections` takes of a test database besides its projectors: the ledger, the read
 * models, and the projectors' leader locks on dedicated sessions, as the service passes them.
 */
export function projectionDeps(t: TestDatabase) {
  return {
    ledger: t.ledger,
    db: t.db,
    requestLeadership: leadershipOn(dedicatedConnectionConfig(t.db)),
  };
}

export const hex = (n: number | bigint, bytes: number): `0x${string}` =>
  `0x${n.toString(16).padStart(bytes * 2, '0')}`;
export const address = (n: number): `0x${string}` => hex(0xa000 + n, 20);
export const uidOf = (n: number, owner = address(1), validTo = 2_000_000_000): OrderUid =>
  `0x${hex(n, 32).slice(2)}${owner.slice(2)}${validTo.toString(16).padStart(8, '0')}`;

export const SETTLEMENT = '0x9008d19f58aabd9ed0d60971565aa8510560ab41';

export function orderPlaced(n: number, overrides: Partial<OrderPlacedV1> = {}): OrderPlacedV1 {
  const owner = overrides.owner ?? address(1);
  const validTo = overrides.order?.validTo ?? 2_000_000_000;
  return {
    network: 'mainnet',
    uid: uidOf(n, owner, validTo),
    owner,
    order: {
      sellToken: address(100),
      buyToken: address(101),
      receiver: null,
      sellAmount: '1000000000000000000000',
      buyAmount: '2000',
      validTo,
      appData: hex(0xabc, 32),
      feeAmount: '0',
      kind: 'sell',
      partiallyFillable: false,
      sellTokenBalance: 'erc20',
      buyTokenBalance: 'erc20',
      ...overrides.order,
    },
    signingScheme: 'eip712',
    signature: hex(0x1b, 65),
    class: 'limit',
    creationDate: new Date(Date.UTC(2025, 0, 1, 0, 0, n)).toISOString(),
    settlementContract: SETTLEMENT,
    fullAppData: null,
    quoteId: null,
    quote: null,
    interactions: { pre: [], post: [] },
    ...overrides,
  };
}

export const chain = (blockNumber: number, logIndex: number) => ({
  chainId: 1,
  blockNumber,
  logIndex,
  blockHash: hex(blockNumber, 32),
  txHash: hex(blockNumber * 1000 + logIndex, 32),
});

export function tradeSettled(
  placed: OrderPlacedV1,
  amounts: { sell: bigint; buy: bigint; fee?: bigint },
  block = 100,
  logIndex = 0,
): TradeSettledV1 {
  return {
    network: placed.network,
    uid: placed.uid,
    owner: placed.owner,
    auctionId: 1,
    sellToken: placed.order.sellToken,
    buyToken: placed.order.buyToken,
    sellAmount: amounts.sell.toString(),
    buyAmount: amounts.buy.toString(),
    feeAmount: (amounts.fee ?? 0n).toString(),
    settledAt: '2025-01-01T01:00:00.000Z',
    chain: chain(block, logIndex),
  };
}

export function orderCancelled(
  placed: OrderPlacedV1,
  source: 'api' | 'chain',
  cancelledAt = '2025-01-01T02:00:00.000Z',
): OrderCancelledV1 {
  return source === 'chain'
    ? onChainInvalidation(placed, 1, cancelledAt)
    : {
        network: placed.network,
        uid: placed.uid,
        source,
        reason: 'signed cancellation',
        cancelledAt,
        by: placed.owner,
      };
}

/** An `invalidateOrder` log at block 200. */
export function onChainInvalidation(
  placed: OrderPlacedV1,
  logIndex: number,
  cancelledAt = '2025-01-01T02:00:00.000Z',
): OrderCancelledV1 & { chain: ChainCoordinates } {
  return {
    network: placed.network,
    uid: placed.uid,
    source: 'chain',
    reason: 'invalidateOrder',
    cancelledAt,
    by: placed.owner,
    chain: chain(200, logIndex),
  };
}

export function preSignatureSet(
  placed: OrderPlacedV1,
  signed: boolean,
  block: number,
  logIndex = 0,
): PreSignatureSetV1 {
  return {
    network: placed.network,
    uid: placed.uid,
    owner: placed.owner,
    signed,
    chain: chain(block, logIndex),
  };
}

export function appDataRegistered(
  network: string,
  hash: `0x${string}`,
  fullAppData: string,
): AppDataRegisteredV1 {
  return { network, hash, fullAppData, registeredAt: '2025-01-01T00:00:00.000Z' };
}

/** The stream an event of this type belongs to. */
export function streamOf<T extends EventType>(type: T, data: EventPayloads[T]): string {
  return domainStreamOf({ type, data } as DomainEvent);
}

/** Appends one event to its stream; returns its all-stream position. */
export async function append<T extends EventType>(
  ledger: PostgresLedger,
  type: T,
  data: EventPayloads[T],
): Promise<string> {
  const result = await ledger.append(
    streamOf(type, data),
    [{ id: randomUUID(), type, version: EVENT_VERSIONS[type], data }],
    'any',
  );
  return result.position;
}

/** Every row of `schema.table`, in a canonical order, as JSON text (for equality checks). */
export async function tableContents(db: Knex, schema: string, table: string): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { row: string }[] }>(
    `SELECT row_to_json(t)::text AS row FROM "${schema}"."${table}" t ORDER BY row_to_json(t)::text`,
  );
  return rows.map((r) => r.row);
}
