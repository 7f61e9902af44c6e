/**
 * Replay benchmark: fills a throw-away embedded PostgreSQL ledger with N events (a mix of
 * placements, fills, cancellations, pre-signatures and app data, shaped like the real ones),
 * then measures
 *   - replay: `replayInto` rebuilding every read model into a fresh schema (target ≥ 50,000/s);
 *   - live catch-up: the projection runner following the same ledger from scratch, as a
 *     service does after a version bump;
 *   - live load: orders placed at 2,000/s (the orders projector's target), each waiting for its
 *     own projection as POST /orders does; the append → projected latency is what a client
 *     that got 201 waits for before it can read its order.
 *
 *   node --import tsx scripts/bench/replay.ts [events, default 100000]
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import knex from 'knex';
import pg from 'pg';
import { allProjectors } from '../../projections/index.js';
import { noticesProjector } from '../../projections/notices/projector.js';
import { replayInto } from '../../projections/replay.js';
import { startProjections, type ProjectionEngine } from '../../projections/runner.js';
import {
  EVENT_VERSIONS,
  streams,
  type EventPayloads,
  type EventType,
  type Hex,
  type OrderPlacedV1,
} from '../../src/domain/events.js';
import { createPostgresLedger } from '../../src/ledger/postgres.js';
import type { Ledger, NewEvent } from '../../src/ledger/port.js';
import { startScratchPostgres } from './scratch.js';

const total = Number(process.argv[2] ?? 100_000);
const WRITERS = 256;

const hex = (n: number, bytes: number): Hex => `0x${n.toString(16).padStart(bytes * 2, '0')}`;
const event = <T extends EventType>(type: T, data: EventPayloads[T]): NewEvent => ({
  id: randomUUID(),
  type,
  version: EVENT_VERSIONS[type],
  data,
});
const chain = (n: number) => ({
  chainId: 1,
  blockNumber: 20_000_000 + n,
  logIndex: n % 50,
  blockHash: hex(n, 32),
  txHash: hex(n + 1, 32),
});

/** One order's stream: placed, then (for some) filled, cancelled or pre-signed. */
function orderStream(n: number): { stream: string; events: NewEvent[] } {
  const owner = hex(0x1000 + (n % 5000), 20);
  const uid = `${hex(n, 32)}${owner.slice(2)}7fffffff` as Hex;
  const presign = n % 7 === 0;
  const fullAppData = n % 3 === 0 ? `{"appCode":"bench","metadata":{"n":${n}}}` : null;
  const placed: OrderPlacedV1 = {
    network: n % 4 === 0 ? 'gnosis' : 'mainnet',
    uid,
    owner,
    order: {
      sellToken: hex(0xa0 + (n % 40), 20),
      buyToken: hex(0xf0 + (n % 40), 20),
      receiver: n % 9 === 0 ? hex(0xbeef, 20) : null,
      sellAmount: '1000000000000000000',
      buyAmount: String(2_500_000_000 + n),
      validTo: 2_147_483_647,
      appData: hex(n, 32),
      feeAmount: '0',
      kind: n % 2 ? 'sell' : 'buy',
      partiallyFillable: n % 5 === 0,
      sellTokenBalance: 'erc20',
      buyTokenBalance: 'erc20',
    },
    signingScheme: presign ? 'presign' : 'eip712',
    signature: presign ? '0x' : hex(n, 65),
    class: 'limit',
    creationDate: new Date(1_750_000_000_000 + n * 1000).toISOString(),
    settlementContract: '0x9008d19f58aabd9ed0d60971565aa8510560ab41',
    fullAppData,
    quoteId: null,
    quote: null,
    interactions: { pre: [], post: [] },
  };
  const { network } = placed;
  const events = [event('OrderPlaced', placed)];
  if (presign) {
    events.push(event('PreSignatureSet', { network, uid, owner, signed: true, chain: chain(n) }));
  }
  if (n % 2 === 0) {
    events.push(
      event('TradeSettled', {
        network,
        uid,
        owner,
        auctionId: n,
        sellToken: placed.order.sellToken,
        buyToken: placed.order.buyToken,
        sellAmount: '500000000000000000',
        buyAmount: String(1_250_000_000 + n),
        feeAmount: '0',
        settledAt: new Date(1_750_000_100_000 + n * 1000).toISOString(),
        chain: chain(n),
      }),
    );
  }
  if (n % 10 === 3) {
    events.push(
      event('OrderCancelled', {
        network,
        uid,
        source: 'api',
        reason: 'signed cancellation',
        cancelledAt: new Date(1_750_000_200_000 + n * 1000).toISOString(),
        by: owner,
      }),
    );
  }
  return { stream: streams.order(network, uid), events };
}

function appDataStream(n: number): { stream: string; events: NewEvent[] } {
  const hash = hex(0xad000000 + n, 32);
  const data = {
    network: 'mainnet',
    hash,
    fullAppData: `{"registered":${n}}`,
    registeredAt: '2025-06-01T00:00:00.000Z',
  };
  return { stream: streams.appData('mainnet', hash), events: [event('AppDataRegistered', data)] };
}

async function fill(ledger: Ledger): Promise<{ events: number; last: string }> {
  let next = 0;
  let written = 0;
  let last: string | null = null;
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (written < total) {
        const n = next++;
        const { stream, events } = n % 20 === 19 ? appDataStream(n) : orderStream(n);
        const batch = events.slice(0, total - written);
        if (batch.length === 0) return;
        written += batch.length;
        const { position } = await ledger.append(stream, batch, 'noStream');
        if (last === null || ledger.comparePositions(position, last) > 0) last = position;
      }
    }),
  );
  return { events: written, last: last! };
}

const LOAD_RATE = 2_000;
const LOAD_SECONDS = 10;

/**
 * Places orders at a steady LOAD_RATE while the engine runs, each waiting for its own event to
 * be projected as the POST handler does; measures the append and that wait.
 */
async function steadyLoad(ledger: Ledger, engine: ProjectionEngine, first: number) {
  const appends: number[] = [];
  const waits: number[] = [];
  const count = LOAD_RATE * LOAD_SECONDS;
  const began = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 512 }, async () => {
      for (let i = next++; i < count; i = next++) {
        const due = began + (i * 1000) / LOAD_RATE;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const start = performance.now();
        const { stream, events } = orderStream(first + i);
        const { position } = await ledger.append(stream, events.slice(0, 1), 'noStream');
        const appended = performance.now();
        if (!(await engine.waitFor('orders', position, 10_000))) throw new Error('lagging');
        appends.push(appended - start);
        waits.push(performance.now() - appended);
      }
    }),
  );
  const rate = perSecond(count, began);
  return { rate, append: percentiles(appends), wait: percentiles(waits) };
}

function percentiles(values: number[]): string {
  values.sort((a, b) => a - b);
  const at = (p: number) => values[Math.min(values.length - 1, Math.floor(p * values.length))]!;
  return `p50 ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms`;
}

const perSecond = (events: number, since: number) =>
  Math.round(events / ((performance.now() - since) / 1000)).toLocaleString('en');

async function main() {
  const scratch = await startScratchPostgres('batchbook-bench-replay-');
  const url = scratch.url('postgres');
  const pool = new pg.Pool({ connectionString: url, max: 16 });
  pool.on('error', () => undefined);
  scratch.onStop(() => pool.end());
  const db = knex({ client: 'pg', connection: url, pool: { min: 0, max: 4 } });
  scratch.onStop(() => db.destroy());
  try {
    const ledger = await createPostgresLedger({ pool, maxConcurrentBatches: 4 });
    let began = performance.now();
    const written = await fill(ledger);
    console.log(
      `wrote ${written.events.toLocaleString('en')} events: ${perSecond(written.events, began)} events/s`,
    );

    began = performance.now();
    let shown = 0;
    const replayed = await replayInto({
      ledger,
      db,
      projectors: allProjectors(),
      schema: 'read_replay',
      onProgress: (events) => {
        if (events - shown < total / 10) return;
        shown = events;
        process.stdout.write(`  replayed ${events.toLocaleString('en')}\r`);
      },
    });
    console.log(
      `replay: ${replayed.events.toLocaleString('en')} events, ${perSecond(replayed.events, began)} events/s`,
    );

    // The notices projector alone (issue: notifications): notices derived per second.
    began = performance.now();
    const alone = await replayInto({
      ledger,
      db,
      projectors: [noticesProjector()],
      schema: 'read_notices',
    });
    const seconds = (performance.now() - began) / 1000;
    const notices = Number(
      (await db.raw<{ rows: { n: string }[] }>('SELECT count(*) AS n FROM read_notices.notices'))
        .rows[0]!.n,
    );
    console.log(
      `notices projector alone: ${alone.events.toLocaleString('en')} events in ${seconds.toFixed(1)} s, ` +
        `${notices.toLocaleString('en')} notices: ${Math.round(notices / seconds).toLocaleString('en')} notices/s`,
    );

    began = performance.now();
    const engine = await startProjections({ ledger, db, projectors: allProjectors() });
    const caughtUp = await engine.waitFor('orders', written.last, 600_000);
    const ordersRate = perSecond(written.events, began);
    await engine.waitFor('app-data', written.last, 600_000);
    if (!caughtUp) throw new Error('live projection did not catch up');
    console.log(`live catch-up (orders projector, batches of 500): ${ordersRate} events/s`);

    const lag = await steadyLoad(ledger, engine, total);
    console.log(
      `live at ${LOAD_RATE.toLocaleString('en')} OrderPlaced/s for ${LOAD_SECONDS} s: ${lag.rate}/s placed; ` +
        `append ${lag.append}; then projected (the read-your-writes wait) ${lag.wait}`,
    );
    await engine.stop();
    await ledger.close();
  } finally {
    await scratch.stop();
  }
}

await main();
