/**
 * What one PostgreSQL round trip costs this process, through loopback TCP and through the Unix
 * socket the embedded server also listens on (src/postgres/embedded.ts connects through the
 * socket): a trivial parameterised query at a fixed concurrency, queries per second and the
 * process's CPU per query (user and system).
 *
 *   npm run bench:round-trips -- [--queries 20000] [--concurrency 16] [--rounds 2]
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import {
  commandLine,
  loadAverage,
  machine,
  startScratchPostgres,
  table,
} from './support/harness.js';

function options() {
  const { values } = parseArgs({
    options: {
      queries: { type: 'string', default: '20000' },
      concurrency: { type: 'string', default: '16' },
      rounds: { type: 'string', default: '2' },
    },
  });
  const [queries, concurrency, rounds] = [values.queries, values.concurrency, values.rounds].map(
    Number,
  ) as [number, number, number];
  if (!(queries > 0 && concurrency > 0 && rounds > 0)) throw new Error('options must be positive');
  return { queries, concurrency, rounds };
}

/** Runs `queries` round trips over a pool on `url`; returns [queries/s, user µs, system µs]. */
async function measure(url: string, queries: number, concurrency: number) {
  const pool = new pg.Pool({ connectionString: url, max: concurrency });
  try {
    await pool.query('SELECT 1');
    const cpu = process.cpuUsage();
    const started = performance.now();
    let sent = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (sent < queries) await pool.query('SELECT $1::int', [sent++]);
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    return [queries / seconds, used.user / queries, used.system / queries] as const;
  } finally {
    await pool.end();
  }
}

async function main(): Promise<void> {
  const { queries, concurrency, rounds } = options();
  const scratch = await startScratchPostgres('batchbook-bench-rtt-');
  try {
    const socket = scratch.url('bench');
    const tcp = socket.replace(/\?.*$/, '');
    if (tcp === socket) throw new Error('the scratch cluster has no Unix socket (path too long?)');
    const rows = [['transport', 'queries/s', 'CPU µs/query (user + system)', 'system µs/query']];
    for (let round = 0; round < rounds; round++) {
      for (const [name, url] of [
        ['loopback TCP', tcp],
        ['Unix socket', socket],
      ] as const) {
        const [rate, user, system] = await measure(url, queries, concurrency);
        rows.push([
          name,
          Math.round(rate).toLocaleString('en'),
          (user + system).toFixed(1),
          system.toFixed(1),
        ]);
      }
    }
    console.log('batchbook benchmark: one PostgreSQL round trip, by transport');
    console.log(`machine: ${machine()}`);
    console.log(`command: ${commandLine()}`);
    console.log(`${queries.toLocaleString('en')} queries per row at concurrency ${concurrency}\n`);
    console.log(table(rows));
    console.log(loadAverage());
  } finally {
    await scratch.stop();
  }
}

await main();
