/**
 * Ledger benchmark: appends/s (one event per append, each to a new stream with `noStream`, as
 * placing an order does) at several concurrencies with p50/p99 latency, then events/s read back
 * by `readAll` in batches of 1000. Runs against a throw-away embedded PostgreSQL.
 *
 *   node --import tsx scripts/bench/ledger.ts [seconds per concurrency, default 5]
 *
 * BENCH_LEDGER_BATCHES sets the ledger's `maxConcurrentBatches` (default: the ledger's own).
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createPostgresLedger } from '../../src/ledger/postgres.js';
import { migrateStores } from '../../src/postgres/migrations/apply.js';
import type { Ledger, NewEvent } from '../../src/ledger/port.js';
import { startScratchPostgres } from './support/harness.js';

const CONCURRENCIES = [1, 16, 32];
const seconds = Number(process.argv[2] ?? 5);

/** About the size and shape of an OrderPlaced event; built once, so the bench measures the ledger. */
const ORDER = {
  network: 'mainnet',
  owner: `0x${'ab'.repeat(20)}`,
  order: {
    sellToken: `0x${'11'.repeat(20)}`,
    buyToken: `0x${'22'.repeat(20)}`,
    receiver: null,
    sellAmount: '1000000000000000000',
    buyAmount: '2500000000',
    validTo: 1_900_000_000,
    appData: `0x${'33'.repeat(32)}`,
    feeAmount: '0',
    kind: 'sell',
    partiallyFillable: false,
    sellTokenBalance: 'erc20',
    buyTokenBalance: 'erc20',
  },
  signingScheme: 'eip712',
  signature: `0x${'44'.repeat(65)}`,
  class: 'limit',
  creationDate: '2026-01-01T00:00:00.000Z',
  appDataDocument: '{"version":"1.3.0","metadata":{}}',
};

function orderPlaced(uid: string): NewEvent {
  return {
    id: randomUUID(),
    type: 'OrderPlaced',
    version: 1,
    data: { ...ORDER, uid },
    metadata: { source: 'bench' },
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function appends(ledger: Ledger, concurrency: number) {
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const uid = randomUUID();
        await ledger.append(`order-${uid}`, [orderPlaced(uid)], 'noStream');
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

async function readBack(ledger: Ledger) {
  let count = 0;
  let cursor: string | null = null;
  const started = performance.now();
  for (;;) {
    const page = await ledger.readAll(cursor, 1000);
    if (page.length === 0) break;
    count += page.length;
    cursor = page.at(-1)!.position;
  }
  return { count, perSecond: count / ((performance.now() - started) / 1000) };
}

async function main() {
  const scratch = await startScratchPostgres('batchbook-bench-ledger-');
  const pool = new pg.Pool({ connectionString: scratch.url('postgres'), max: 16 });
  // Connections end with the server at the end of the run; failures mid-run fail appends.
  pool.on('error', () => undefined);
  scratch.onStop(() => pool.end());
  try {
    await migrateStores(pool);
    const ledger = createPostgresLedger({
      pool,
      maxConcurrentBatches: Number(process.env.BENCH_LEDGER_BATCHES) || undefined,
    });
    await appends(ledger, 4); // warm-up: connections, plans, caches
    console.log(`Postgres ledger, ${seconds} s per run, 1 event per append to a new stream`);
    for (const concurrency of CONCURRENCIES) {
      const r = await appends(ledger, concurrency);
      console.log(
        `concurrency ${String(concurrency).padStart(2)}: ${r.perSecond.toFixed(0).padStart(6)} appends/s` +
          `  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms`,
      );
    }
    const read = await readBack(ledger);
    console.log(
      `readAll, batches of 1000: ${read.perSecond.toFixed(0)} events/s (${read.count} events)`,
    );
    await ledger.close();
  } finally {
    await scratch.stop();
  }
}

await main();
