/**
 * Projection lag under a steady live load: every projector the service runs (`allProjectors()`
 * through `startProjections`, on pools sized as `src/startup/infrastructure.ts` sizes them) follows a scratch
 * PostgreSQL ledger while orders are placed at a fixed rate. Each appended event is timed from
 * its append's commit (the moment `append` resolves, when a POST handler would start its
 * read-your-writes wait) to the moment each projector's checkpoint covers it.
 *
 *   npm run bench:lag -- [--rate 1000] [--seconds 30] [--engine thread|in-process]
 *
 * Each order appends its OrderPlaced when due (open loop: a slow append never delays the next
 * order), then, FOLLOW_UP_MS later, the rest of its synthetic stream one event per append, as
 * the chain indexer and the API would: a pre-signature for every seventh order, a fill for every
 * second, a cancellation for every tenth (`support/synthetic-ledger.ts`, the replay bench's mix): about
 * 1.74 events per order. The first WARMUP_SECONDS are load but not measured.
 *
 * To show where the lag comes from it also times each event until a bare ledger subscription
 * (one more reader, no projector) delivers it. The projectors run as the service runs them, on a
 * thread of their own (src/projection-thread.ts); `--engine in-process` runs them on the load's
 * thread instead, as the service did before, and then also counts each projector's batches and
 * the time its `handle` took.
 * Target (issue 7): p99 ≤ 100 ms at 1,000 orders/s.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import knex from 'knex';
import pg from 'pg';
import { dedicatedConnectionConfig } from '../../projections/connection.js';
import { allProjectors, type Projector } from '../../projections/index.js';
import { startProjections, type ProjectionEngine } from '../../projections/runner.js';
import { createPostgresLedger } from '../../src/ledger/postgres.js';
import { migrateStores } from '../../src/postgres/migrations/apply.js';
import { DEFAULT_POSTGRES_DEADLINES, knexOptions } from '../../src/postgres/connection-options.js';
import { startProjectionThread } from '../../src/projection-thread/thread.js';
import type { ExpectedRevision, Ledger, NewEvent } from '../../src/ledger/port.js';
import { leadershipOn } from '../../src/postgres/leadership.js';
import { watchVisibility, type VisibilityWatch } from './support/ledger-visibility.js';
import { percentile } from './support/load.js';
import {
  clusterCpuSeconds,
  commandLine,
  loadAverage,
  machine,
  startScratchPostgres,
  table,
} from './support/harness.js';
import { orderStream } from './support/synthetic-ledger.js';

/** A fill or cancellation follows its order by about an auction round. */
const FOLLOW_UP_MS = 1_000;
/** Lets the projectors' first batches (plans, caches, JIT) pass before anything is measured. */
const WARMUP_SECONDS = 2;
/** An event no projector covered by then counts as missed instead of holding the run. */
const WAIT_MS = 60_000;
const TARGET_P99_MS = 100;

interface Samples {
  /** append call → commit, ms */
  appends: number[];
  /** per projector: commit → its checkpoint covers the event, ms */
  lags: Map<string, number[]>;
  /** per event: commit → every projector covers it, ms */
  all: number[];
  /** per event: commit → a bare ledger subscription delivers it, ms (0 if it came first) */
  visible: number[];
  /** events some projector had not covered after WAIT_MS */
  missed: number;
  /** when the last OrderPlaced append committed */
  lastPlaced: number;
}

/** Per projector: events per batch and the time its `handle` took, read by wrapping `handle`. */
type BatchLog = Map<string, { sizes: number[]; ms: number[] }>;

type EngineKind = 'thread' | 'in-process';

function options(): { rate: number; seconds: number; engine: EngineKind } {
  const { values } = parseArgs({
    options: {
      rate: { type: 'string', default: '1000' },
      seconds: { type: 'string', default: '30' },
      engine: { type: 'string', default: 'thread' },
    },
  });
  const rate = Number(values.rate);
  const seconds = Number(values.seconds);
  if (!(rate > 0) || !(seconds > 0)) throw new Error('--rate and --seconds must be positive');
  const engine = values.engine;
  if (engine !== 'thread' && engine !== 'in-process') {
    throw new Error('--engine must be thread or in-process');
  }
  return { rate, seconds, engine };
}

function timedProjectors(log: BatchLog): Projector[] {
  return allProjectors().map((projector) => {
    const batches = { sizes: [] as number[], ms: [] as number[] };
    log.set(projector.name, batches);
    return {
      ...projector,
      handle: async (trx, events, schema) => {
        const started = performance.now();
        await projector.handle(trx, events, schema);
        batches.sizes.push(events.length);
        batches.ms.push(performance.now() - started);
      },
    };
  });
}

/** What the load appends to and what it times. */
interface Rig {
  ledger: Ledger;
  engine: ProjectionEngine;
  visibility: VisibilityWatch;
}

/** Appends one event and times it until every projector has covered it. */
async function appendMeasured(
  { ledger, engine, visibility }: Rig,
  samples: Samples,
  stream: string,
  event: NewEvent,
  expected: ExpectedRevision,
): Promise<() => Promise<void>> {
  const started = performance.now();
  const { position } = await ledger.append(stream, [event], expected);
  const committed = performance.now();
  samples.appends.push(committed - started);
  if (expected === 'noStream') samples.lastPlaced = Math.max(samples.lastPlaced, committed);
  const waits = [...samples.lags].map(async ([name, lags]) => {
    if (!(await engine.waitFor(name, position, WAIT_MS))) return null;
    const lag = performance.now() - committed;
    lags.push(lag);
    return lag;
  });
  const visible = visibility.seen(position, WAIT_MS);
  return async () => {
    const seen = await visible;
    if (seen !== null) samples.visible.push(Math.max(0, seen - committed));
    const lags = await Promise.all(waits);
    if (lags.some((lag) => lag === null)) samples.missed += 1;
    else samples.all.push(Math.max(...(lags as number[])));
  };
}

/** Order `n`: its placement now, the rest of its stream FOLLOW_UP_MS later. */
async function placeOrder(rig: Rig, samples: Samples, n: number): Promise<void> {
  const { stream, events } = orderStream(n);
  const measured = [await appendMeasured(rig, samples, stream, events[0]!, 'noStream')];
  await sleep(FOLLOW_UP_MS);
  for (let revision = 1; revision < events.length; revision++) {
    const expected = BigInt(revision - 1);
    measured.push(await appendMeasured(rig, samples, stream, events[revision]!, expected));
  }
  await Promise.all(measured.map((done) => done()));
}

const emptySamples = (names: readonly string[]): Samples => ({
  appends: [],
  lags: new Map(names.map((name) => [name, []])),
  all: [],
  visible: [],
  missed: 0,
  lastPlaced: 0,
});

/** Places `count` orders from number `first` at `rate` a second; resolves once all are measured. */
async function drive(
  place: (n: number) => Promise<void>,
  first: number,
  count: number,
  rate: number,
): Promise<number> {
  const began = performance.now();
  const placing: Promise<void>[] = [];
  for (let i = 0; i < count;) {
    const due = Math.min(count, Math.floor(((performance.now() - began) * rate) / 1000) + 1);
    while (i < due) placing.push(place(first + i++));
    await sleep(1);
  }
  await Promise.all(placing);
  return began;
}

const ms = (v: number) => v.toFixed(1);

/** A table row of `values`' percentiles; sorts `values` in place. */
function lagRow(name: string, values: number[]): string[] {
  const sorted = values.sort((a, b) => a - b);
  return [
    name,
    sorted.length.toLocaleString('en'),
    ...[50, 95, 99].map((p) => ms(percentile(sorted, p))),
    ms(sorted.at(-1) ?? NaN),
  ];
}

/** Each projector's batches (in-process engine only: its `handle` is wrapped to time it). */
function printBatches(batches: BatchLog): void {
  const sources = [['projector batches', 'batches', 'events/batch', 'handle p50', 'handle p99']];
  for (const [name, log] of batches) {
    const sorted = log.ms.sort((a, b) => a - b);
    const total = log.sizes.reduce((a, b) => a + b, 0);
    // A projector with nothing to do in this load gets no batch at all.
    const none = log.sizes.length === 0;
    sources.push([
      name,
      log.sizes.length.toLocaleString('en'),
      none ? '-' : (total / log.sizes.length).toFixed(1),
      none ? '-' : `${ms(percentile(sorted, 50))} ms`,
      none ? '-' : `${ms(percentile(sorted, 99))} ms`,
    ]);
  }
  console.log(`\n${table(sources)}`);
  console.log(loadAverage());
}

function report(
  rate: number,
  orders: number,
  samples: Samples,
  began: number,
  batches: BatchLog,
  busy: number,
  cpuSeconds: { node: number; postgres: number },
): void {
  const placingSeconds = (samples.lastPlaced - began) / 1000;
  const events = samples.appends.length;
  console.log('batchbook benchmark: projection lag under a steady load (every projector, live)');
  console.log(`machine: ${machine()}`);
  console.log(`command: ${commandLine()}`);
  console.log(
    `placed ${orders.toLocaleString('en')} orders in ${placingSeconds.toFixed(1)} s: ` +
      `${Math.round(orders / placingSeconds).toLocaleString('en')} orders/s achieved ` +
      `(asked ${rate.toLocaleString('en')}/s), ${events.toLocaleString('en')} events appended ` +
      `with their follow-ups; the thread's event loop busy ${Math.round(busy * 100)} %`,
  );
  // Less noisy than the lag itself on a shared machine: what each event cost both sides.
  const perEvent = (seconds: number) => `${Math.round((seconds * 1e6) / events)} µs`;
  console.log(
    `CPU per event: ${perEvent(cpuSeconds.node)} in this process (every thread), ` +
      `${perEvent(cpuSeconds.postgres)} in PostgreSQL\n`,
  );
  const rows = [['commit → checkpoint covers it (ms)', 'events', 'p50', 'p95', 'p99', 'max']];
  for (const [name, lags] of samples.lags) rows.push(lagRow(name, lags));
  rows.push(lagRow('every projector (the last of them)', samples.all));
  rows.push(lagRow('a bare ledger subscription delivers it', samples.visible));
  rows.push(lagRow('append call → commit', samples.appends));
  console.log(table(rows));
  if (samples.missed > 0) {
    console.log(`${samples.missed} events not covered by every projector within ${WAIT_MS} ms`);
  }

  if (batches.size === 0) {
    console.log('\n(per-batch figures: run with --engine in-process, which times each handle)');
    console.log(loadAverage());
  } else printBatches(batches);

  const p99 = percentile(samples.all, 99);
  console.log(
    `target: p99 ≤ ${TARGET_P99_MS} ms at 1,000 orders/s: p99 ${ms(p99)} ms at ` +
      `${rate.toLocaleString('en')}/s → ${p99 <= TARGET_P99_MS && samples.missed === 0 ? 'met' : 'NOT met'}`,
  );
}

async function main(): Promise<void> {
  const { rate, seconds, engine: kind } = options();
  const scratch = await startScratchPostgres('batchbook-bench-lag-');
  try {
    const url = scratch.url('bench');
    // The service's pool sizes (src/startup/infrastructure.ts): the ledger's pool and the read models' knex.
    const pool = new pg.Pool({ connectionString: url, max: 24 });
    pool.on('error', () => undefined);
    scratch.onStop(() => pool.end());
    // Pipelined, as the projection thread's read-model connections (for `--engine in-process`).
    const db = knex({
      client: 'pg',
      ...knexOptions(url, DEFAULT_POSTGRES_DEADLINES, { min: 0, max: 16 }, { pipelined: true }),
    });
    scratch.onStop(() => db.destroy());
    await migrateStores(pool);
    const ledger = createPostgresLedger({ pool });
    scratch.onStop(() => ledger.close());
    const batches: BatchLog = new Map();
    const engine =
      kind === 'thread'
        ? // As the service runs them: on a thread of their own, with their own connections.
          await startProjectionThread({
            databaseUrl: url,
            deadlines: DEFAULT_POSTGRES_DEADLINES,
            ledger: { kind: 'postgres' },
            comparePositions: (a, b) => ledger.comparePositions(a, b),
            onError: (err, projector) => console.error('projection', projector ?? '', err),
          })
        : await startProjections({
            ledger,
            db,
            projectors: timedProjectors(batches),
            requestLeadership: leadershipOn(dedicatedConnectionConfig(db)),
          });
    scratch.onStop(() => engine.stop());
    const visibility = watchVisibility(ledger);
    scratch.onStop(() => visibility.close());
    const rig: Rig = { ledger, engine, visibility };
    const names = allProjectors().map((p) => p.name);

    const warmup = emptySamples(names);
    const warmupOrders = Math.ceil(rate * WARMUP_SECONDS);
    await drive((n) => placeOrder(rig, warmup, n), 0, warmupOrders, rate);
    for (const log of batches.values()) log.sizes.length = log.ms.length = 0;

    const samples = emptySamples(names);
    const loop = performance.eventLoopUtilization();
    const cpu = { node: process.cpuUsage(), postgres: clusterCpuSeconds(scratch.dir) };
    const place = (n: number) => placeOrder(rig, samples, n);
    const orders = Math.round(rate * seconds);
    const began = await drive(place, warmupOrders, orders, rate);
    const busy = performance.eventLoopUtilization(loop).utilization;
    const nodeCpu = process.cpuUsage(cpu.node);
    const cpuSeconds = {
      node: (nodeCpu.user + nodeCpu.system) / 1e6,
      postgres: clusterCpuSeconds(scratch.dir) - cpu.postgres,
    };
    report(rate, orders, samples, began, batches, busy, cpuSeconds);
  } finally {
    await scratch.stop();
  }
}

await main();
