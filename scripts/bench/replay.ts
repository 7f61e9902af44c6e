/**
 * Replay benchmark: fills a throw-away embedded PostgreSQL ledger with N events (a mix of
 * placements, fills, cancellations, pre-signatures and app data, shaped like the real ones),
 * then measures
 *   - replay: `replayInto` rebuilding every read model into a fresh schema (target ≥ 50,000/s);
 *   - live catch-up: the projection runner following the same ledger from scratch, as a
 *     service does after a version bump.
 * Projection lag under a steady live load is `lag.ts`.
 *
 *   node --import tsx scripts/bench/replay.ts [events, default 100000] [--replay-only] [--each]
 *                                            [--profile DIR]
 *
 * `--each` then replays the ledger once with no projector (what reading it costs) and once per
 * projector alone, with the same CPU figures: where a replay's time goes. `--profile DIR` writes
 * a CPU profile of this process per replay measured (`replay-{label}.cpuprofile`).
 *
 * The replay's line also gives the CPU seconds it took on each side: this process (reading the
 * ledger, the projectors' own work) and PostgreSQL (every backend of the scratch cluster).
 */
import { performance } from 'node:perf_hooks';
import knex from 'knex';
import pg from 'pg';
import { dedicatedConnectionConfig } from '../../projections/connection.js';
import { allProjectors, type Projector } from '../../projections/index.js';
import { noticesProjector } from '../../projections/notices/projector.js';
import { replayInto } from '../../projections/replay.js';
import { startProjections } from '../../projections/runner.js';
import { createPostgresLedger } from '../../src/ledger/postgres.js';
import { migrateStores } from '../../src/postgres/migrations/apply.js';
import { leadershipOn } from '../../src/postgres/leadership.js';
import { clusterCpuSeconds, startScratchPostgres } from './support/harness.js';
import { phaseProfiler } from './support/phase-profiler.js';
import { fill } from './support/synthetic-ledger.js';

const total = Number(process.argv[2] ?? 100_000);
/** Only the replay of every read model: no notices-alone replay, no live catch-up. */
const replayOnly = process.argv.includes('--replay-only');
/** Also replay with no projector, then each projector alone. */
const each = process.argv.includes('--each');
const profileAt = process.argv.indexOf('--profile');
const profiler =
  profileAt === -1 ? null : phaseProfiler(process.argv[profileAt + 1] ?? 'prof', 'replay');

const perSecond = (events: number, since: number) =>
  Math.round(events / ((performance.now() - since) / 1000)).toLocaleString('en');

async function main() {
  const scratch = await startScratchPostgres('batchbook-bench-replay-');
  const url = scratch.url('postgres');
  const pool = new pg.Pool({ connectionString: url, max: 16 });
  pool.on('error', () => undefined);
  scratch.onStop(() => pool.end());
  // One connection per projector, as `npm run replay` opens.
  const db = knex({
    client: 'pg',
    connection: url,
    pool: { min: 0, max: allProjectors().length + 1 },
  });
  scratch.onStop(() => db.destroy());
  try {
    await migrateStores(pool);
    const ledger = createPostgresLedger({ pool, maxConcurrentBatches: 4 });
    let began = performance.now();
    const written = await fill(ledger, total);
    console.log(
      `wrote ${written.events.toLocaleString('en')} events: ${perSecond(written.events, began)} events/s`,
    );

    const measure = async (label: string, projectors: Projector[], schema: string) => {
      await profiler?.start();
      const began = performance.now();
      const cpu = { node: process.cpuUsage(), postgres: clusterCpuSeconds(scratch.dir) };
      let shown = 0;
      const replayed = await replayInto({
        ledger,
        db,
        projectors,
        schema,
        onProgress: (events) => {
          if (events - shown < total / 10) return;
          shown = events;
          process.stdout.write(`  replayed ${events.toLocaleString('en')}\r`);
        },
      });
      const nodeCpu = process.cpuUsage(cpu.node);
      const postgresCpu = clusterCpuSeconds(scratch.dir) - cpu.postgres;
      await profiler?.stop(label.replace(/ /g, '-'));
      const perEvent = (seconds: number) => ((seconds * 1e6) / replayed.events).toFixed(0);
      const nodeSeconds = (nodeCpu.user + nodeCpu.system) / 1e6;
      console.log(
        `${label}: ${replayed.events.toLocaleString('en')} events, ${perSecond(replayed.events, began)} events/s; ` +
          `CPU ${nodeSeconds.toFixed(1)} s here (${perEvent(nodeSeconds)} µs/event), ` +
          `${postgresCpu.toFixed(1)} s PostgreSQL (${perEvent(postgresCpu)} µs/event)`,
      );
    };
    await measure('replay', allProjectors(), 'read_replay');
    if (each) {
      await measure('reading alone', [], 'read_nothing');
      for (const projector of allProjectors()) {
        await measure(projector.name, [projector], `read_${projector.name.replace('-', '_')}`);
      }
    }
    if (replayOnly) {
      await ledger.close();
      return;
    }

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
    const engine = await startProjections({
      ledger,
      db,
      projectors: allProjectors(),
      requestLeadership: leadershipOn(dedicatedConnectionConfig(db)),
    });
    const caughtUp = await engine.waitFor('orders', written.last, 600_000);
    const ordersRate = perSecond(written.events, began);
    await engine.waitFor('app-data', written.last, 600_000);
    if (!caughtUp) throw new Error('live projection did not catch up');
    console.log(`live catch-up (orders projector, batches of 500): ${ordersRate} events/s`);

    await engine.stop();
    await ledger.close();
  } finally {
    await scratch.stop();
  }
}

await main();
