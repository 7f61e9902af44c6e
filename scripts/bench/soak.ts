/**
 * Soak: the whole service (embedded PostgreSQL, its own devnet anvil, the autopilot cutting an
 * auction every 2 s with the built-in solver settling on the devnet) under a steady mixed load
 * for `--minutes`, to see whether its memory stays flat and its errors and latency steady.
 *
 *   npm run bench:soak -- [--minutes 10] [--rate 100] [--owners 50] [--heap-snapshots DIR]
 *                         [--stages] [--pg-statements]
 *
 * Load, open loop from a worker thread (support/soak-load.ts), per second: `--rate` signed orders
 * (one in 20 fillable through the WETH/DUSD pool, the others limit orders far from the market,
 * each valid 70 s, so the open book levels off at a few thousand orders), as many reads of
 * orders placed, a quarter as many account-orders pages, a tenth as many quotes, and every 5 s a
 * solver's GET /auction. Rate limits are off (one client).
 *
 * `--stages` prints the wall time of each named stage of the service's work; `--pg-statements`
 * starts PostgreSQL with pg_stat_statements and prints the statements that cost it the most.
 *
 * The service thread's heapUsed is read just after each of its own full collections (V8 runs
 * one every few seconds under this load): what it retains, not garbage awaiting collection,
 * without forcing a collection, which would stall the very thread whose stalls and latencies the
 * soak measures (a forced one of its ~50 MiB heap takes 50–130 ms, and every request in flight
 * waits for it). Every 10 s the main thread samples rss (the whole process) and external (this
 * thread's isolate). The projection and auction threads' heaps, other isolates, are read from the
 * service's `/metrics` (`batchbook_{projection,auction}_thread_heap_used_bytes`): the npm script
 * runs node with --expose-gc, so those threads collect fully before they answer, on their own
 * time.
 *
 * Each minute's heap floor is the lowest heapUsed of its samples: work in flight lifts single
 * samples by 10–35 MiB here (mostly AuctionClosed events of ~3,750 orders, decoded by each
 * projector's subscription), a leak lifts the floor.
 * Verdict, for each of the three heaps: flat when the least-squares slope of the floors over the
 * last 8 minutes is within
 * ±FLAT_MIB_PER_MINUTE. At 100 orders/s the service accepts 6,000 orders a minute, so 0.5 MiB/min
 * is what retaining ~90 bytes per accepted order would add: any per-order leak (one small object
 * in a map) exceeds it. "Inconclusive" when two standard errors of the slope exceed the bound.
 * Otherwise diff two heap snapshots (`--heap-snapshots`): the slope cannot say what grew.
 */
import path from 'node:path';
import {
  constants as performanceConstants,
  monitorEventLoopDelay,
  performance,
  PerformanceObserver,
} from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import { startBenchService } from './support/bench-service.js';
import { fundOwners } from './support/owners.js';
import { quoteParties } from './support/quote-request.js';
import { commandLine, loadAverage, machine, statementsReport, table } from './support/harness.js';
import type { Kind, MinuteStats, SoakLoadData, SoakMessage } from './support/soak-load.js';
import { startTypeScriptWorker } from '../../src/threads/typescript-worker.js';
import { recordStageTimings, takeStageTimings } from '../../src/metrics/stage-timings.js';
import { stageTable } from './support/stage-report.js';

const SAMPLE_MS = 10_000;
const TREND_MINUTES = 8;
const FLAT_MIB_PER_MINUTE = 0.5;
const MiB = 2 ** 20;

interface Sample {
  /** minutes since the load started */
  at: number;
  /** The other threads' heaps in use (null: the service did not say). */
  threadHeapsUsed: ThreadHeaps;
  rss: number;
  external: number;
}

interface Options {
  minutes: number;
  rate: number;
  owners: number;
  /** Where to write heap snapshots after minute 2 and the last minute, to diff what grew. */
  heapSnapshots: string | undefined;
  /** Print where the service thread's time went over the whole run (stage timings). */
  stages: boolean;
  /** Print the statements that cost PostgreSQL the most (pg_stat_statements). */
  pgStatements: boolean;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '10' },
      rate: { type: 'string', default: '100' },
      owners: { type: 'string', default: '50' },
      'heap-snapshots': { type: 'string' },
      stages: { type: 'boolean', default: false },
      'pg-statements': { type: 'boolean', default: false },
    },
  });
  const [minutes, rate, owners] = [values.minutes, values.rate, values.owners].map(Number);
  if (!(minutes! >= 1) || !(rate! > 0) || !(owners! >= 1)) {
    throw new Error('--minutes ≥ 1, --rate > 0 and --owners ≥ 1');
  }
  return {
    minutes: minutes!,
    rate: rate!,
    owners: owners!,
    heapSnapshots: values['heap-snapshots'],
    stages: values.stages,
    pgStatements: values['pg-statements'],
  };
}

/** The heaps of the service's threads of their own, as `/metrics` tells them. */
interface ThreadHeaps {
  projection: number | null;
  auction: number | null;
}

/** The projection and auction threads' heaps in use, as the service's `/metrics` tells them. */
async function threadHeapsUsed(url: string, apiKey: string): Promise<ThreadHeaps> {
  const response = await fetch(`${url}/metrics`, { headers: { 'x-api-key': apiKey } });
  const text = await response.text();
  const heapOf = (thread: string) => {
    const gauge = new RegExp(`^batchbook_${thread}_thread_heap_used_bytes (\\S+)$`, 'm');
    const value = gauge.exec(text)?.[1];
    // An unanswered gauge reads 0 until the thread first answers.
    return value === undefined || Number(value) === 0 ? null : Number(value);
  };
  return { projection: heapOf('projection'), auction: heapOf('auction') };
}

async function sampleMemory(
  began: number,
  threadHeaps: () => Promise<ThreadHeaps>,
): Promise<Sample> {
  const { rss, external } = process.memoryUsage();
  const at = (performance.now() - began) / 60_000;
  return { at, threadHeapsUsed: await threadHeaps(), rss, external };
}

/** The service thread's heapUsed after one of its full collections, minutes into the load. */
interface HeapAfterCollection {
  at: number;
  heapUsed: number;
}

/** Reads the service thread's heap after each of its own full collections, until stopped. */
function watchFullCollections(began: number): {
  readings: HeapAfterCollection[];
  stop(): void;
} {
  const readings: HeapAfterCollection[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
      if (kind !== performanceConstants.NODE_PERFORMANCE_GC_MAJOR) {
        continue;
      }
      const at = (performance.now() - began) / 60_000;
      readings.push({ at, heapUsed: getHeapStatistics().used_heap_size });
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return { readings, stop: () => observer.disconnect() };
}

/** The lowest and the highest of a minute's samples of one heap, bytes. */
interface HeapRange {
  floor: number;
  peak: number;
}

/** What one minute's samples say: the heaps' ranges, rss and external at its end. */
interface MinuteMemory {
  /** Null when the service thread collected fully not once that minute. */
  service: HeapRange | null;
  projection: HeapRange | null;
  auction: HeapRange | null;
  rss: number;
  external: number;
}

function heapRange(values: readonly number[]): HeapRange | null {
  return values.length ? { floor: Math.min(...values), peak: Math.max(...values) } : null;
}

function minuteMemory(
  samples: readonly Sample[],
  collections: readonly HeapAfterCollection[],
  minute: number,
): MinuteMemory | undefined {
  // The sample due at a minute's end lands a little after it: count it in that minute.
  const inMinute = (s: { at: number }) => s.at > minute - 0.95 && s.at <= minute + 0.05;
  const of = samples.filter(inMinute);
  const last = of.at(-1);
  if (!last) return undefined;
  return {
    service: heapRange(collections.filter(inMinute).map((c) => c.heapUsed)),
    projection: heapRange(of.flatMap((s) => s.threadHeapsUsed.projection ?? [])),
    auction: heapRange(of.flatMap((s) => s.threadHeapsUsed.auction ?? [])),
    rss: last.rss,
    external: last.external,
  };
}

/** Least-squares slope of `y` (MiB) per minute over points (minute, y), and its standard error. */
function trend(points: readonly [number, number][]): { slope: number; stderr: number } {
  const n = points.length;
  const t = points.reduce((a, [x]) => a + x, 0) / n;
  const y = points.reduce((a, [, v]) => a + v, 0) / n;
  const sxx = points.reduce((a, [x]) => a + (x - t) ** 2, 0);
  const slope = points.reduce((a, [x, v]) => a + (x - t) * (v - y), 0) / sxx;
  const residuals = points.reduce((a, [x, v]) => a + (v - y - slope * (x - t)) ** 2, 0);
  // Fewer than three points leave nothing to estimate the error from.
  return { slope, stderr: n < 3 ? NaN : Math.sqrt(residuals / (n - 2) / sxx) };
}

function verdict(slope: number, stderr: number): string {
  if (!(2 * stderr <= FLAT_MIB_PER_MINUTE)) return 'inconclusive (too noisy or short: run longer)';
  return Math.abs(slope) <= FLAT_MIB_PER_MINUTE ? 'flat' : 'GROWING';
}

const mib = (bytes: number) => (bytes / MiB).toFixed(1);
const range = (heap: HeapRange | null | undefined) =>
  heap ? `${mib(heap.floor)} / ${mib(heap.peak)}` : '-';
const ms = (v: number) => (Number.isNaN(v) ? '-' : v.toFixed(0));
const SHOWN: [Kind, string][] = [
  ['POST /orders', 'p99 order'],
  ['GET /orders/{uid}', 'p99 read'],
  ['GET /account/{owner}/orders', 'p99 account'],
  ['POST /quote', 'p99 quote'],
];

/** The service thread that minute: share of time busy, longest stall of its event loop (ms). */
interface ThreadStats {
  busy: number;
  maxDelay: number;
}

function minuteRow(stats: MinuteStats, memory: MinuteMemory | undefined, thread: ThreadStats) {
  const kinds = Object.values(stats.kinds);
  return [
    String(stats.minute + 1),
    kinds.reduce((a, k) => a + k.requests, 0).toLocaleString('en'),
    kinds.reduce((a, k) => a + k.errors, 0).toLocaleString('en'),
    stats.inFlight.toLocaleString('en'),
    ...SHOWN.map(([kind]) => ms(stats.kinds[kind].p99)),
    stats.auction ? `${stats.auction.id} (${stats.auction.orders})` : '-',
    `${Math.round(thread.busy * 100)} %`,
    ms(thread.maxDelay),
    range(memory?.service),
    range(memory?.projection),
    range(memory?.auction),
    memory ? mib(memory.rss) : '-',
    memory ? mib(memory.external) : '-',
  ];
}

interface Minute {
  stats: MinuteStats;
  thread: ThreadStats;
}

function report(
  minutes: Minute[],
  samples: Sample[],
  collections: readonly HeapAfterCollection[],
  rate: number,
): void {
  console.log('\nbatchbook soak: the service under a steady mixed load (memory, errors, p99)');
  console.log(`machine: ${machine()}`);
  console.log(`command: ${commandLine()}`);
  console.log(
    'heapUsed of the service thread: the lowest / highest reading after its own full ' +
      `collections (${collections.length} over the run); of the projection and auction threads: ` +
      `every ${SAMPLE_MS / 1000} s, ${globalThis.gc ? 'after a full GC on that thread' : 'WITHOUT a GC first (run node with --expose-gc)'}; ` +
      'rss, external: the last sample of the minute\n',
  );
  const header = [
    'min',
    'requests',
    'errors',
    'in flight',
    ...SHOWN.map(([, name]) => `${name} ms`),
    'last auction (orders)',
    'service thread busy',
    'longest stall ms',
    'heapUsed MiB',
    'projection thread heapUsed MiB',
    'auction thread heapUsed MiB',
    'rss MiB',
    'external MiB',
  ];
  const memory = minutes.map(({ stats }) => minuteMemory(samples, collections, stats.minute + 1));
  const rows = minutes.map(({ stats, thread }, i) => minuteRow(stats, memory[i], thread));
  console.log(table([header, ...rows]));
  const heaps: [string, (m: MinuteMemory) => HeapRange | null][] = [
    ['service thread', (m) => m.service],
    ['projection thread', (m) => m.projection],
    ['auction thread', (m) => m.auction],
  ];
  console.log('');
  for (const [name, heap] of heaps) {
    const floors = memory
      .map((m, i): [number, number] | null => {
        const h = m && heap(m);
        return h ? [i + 1, h.floor / MiB] : null;
      })
      .filter((p): p is [number, number] => p !== null)
      .slice(-TREND_MINUTES);
    const { slope, stderr } = trend(floors);
    const perOrder = (slope * MiB) / (rate * 60);
    console.log(
      `${name} heapUsed floor slope over the last ${floors.length} min: ` +
        `${slope.toFixed(2)} ± ${stderr.toFixed(2)} MiB/min (≈ ${Math.round(perOrder)} bytes per accepted order)`,
    );
    console.log(
      `verdict: ${verdict(slope, stderr)} (flat: |slope| ≤ ${FLAT_MIB_PER_MINUTE} MiB/min)`,
    );
  }
  console.log(loadAverage());
}

async function main(): Promise<void> {
  const { minutes, rate, owners, heapSnapshots, stages, pgStatements } = options();
  const bench = await startBenchService(
    {
      RATE_LIMIT_ORDERS_PER_SECOND: '0',
      RATE_LIMIT_QUOTES_PER_SECOND: '0',
      MAX_CONNECTIONS_PER_CLIENT: '0',
      // Its limit orders far from the market each carry their fresh quote and so count against
      // their owner's cap: a few owners place thousands.
      MAX_LIMIT_ORDERS_PER_OWNER: '1000000',
    },
    undefined,
    { statements: pgStatements },
  );
  try {
    const { deployment } = bench.service.devnet!;
    const data: SoakLoadData = {
      url: bench.service.url,
      seconds: minutes * 60,
      ordersPerSecond: rate,
      trading: await fundOwners(deployment, owners),
      parties: quoteParties(deployment),
    };
    const began = performance.now();
    const threadHeaps = () =>
      threadHeapsUsed(bench.service.url, bench.config.adminApiKey!).catch((): ThreadHeaps => ({
        projection: null,
        auction: null,
      }));
    const collections = watchFullCollections(began);
    const samples: Sample[] = [await sampleMemory(began, threadHeaps)];
    const sampler = setInterval(
      () => void sampleMemory(began, threadHeaps).then((sample) => samples.push(sample)),
      SAMPLE_MS,
    );
    const done: Minute[] = [];
    const errors: string[] = [];
    let loop = performance.eventLoopUtilization();
    const delay = monitorEventLoopDelay({ resolution: 20 });
    delay.enable();
    recordStageTimings(stages);
    const worker = startTypeScriptWorker(
      new URL('./support/soak-load.ts', import.meta.url).href,
      data,
    );
    try {
      await new Promise<void>((resolve, reject) => {
        worker.on('message', (message: SoakMessage) => {
          if (message.kind === 'done') return resolve();
          if (message.kind === 'failed') return reject(new Error(message.error));
          const { stats } = message;
          const thread = {
            busy: performance.eventLoopUtilization(loop).utilization,
            maxDelay: delay.max / 1e6,
          };
          loop = performance.eventLoopUtilization();
          delay.reset();
          done.push({ stats, thread });
          const memory = minuteMemory(samples, collections.readings, stats.minute + 1);
          console.error(
            `minute ${stats.minute + 1}: ${minuteRow(stats, memory, thread).join(' | ')}`,
          );
          const minute = stats.minute + 1;
          if (heapSnapshots && (minute === 2 || minute === minutes)) {
            // Blocks the service for a few seconds: that minute's latency is not comparable.
            writeHeapSnapshot(path.join(heapSnapshots, `soak-minute-${minute}.heapsnapshot`));
          }
          for (const [kind, k] of Object.entries(stats.kinds)) {
            if (k.firstError) errors.push(`minute ${stats.minute + 1}, ${kind}: ${k.firstError}`);
          }
        });
        worker.once('error', reject);
        worker.once('exit', (code) => reject(new Error(`load generator exited with ${code}`)));
      });
    } finally {
      clearInterval(sampler);
      collections.stop();
      delay.disable();
      await worker.terminate();
    }
    report(done, samples, collections.readings, rate);
    if (stages) console.log(`\nstages over the run:\n${stageTable(takeStageTimings())}`);
    if (pgStatements) {
      console.log(
        `\nPostgreSQL's costliest statements:\n${await statementsReport(bench.databaseUrl)}`,
      );
    }
    for (const error of errors) console.log(`first error: ${error}`);
  } finally {
    await bench.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
