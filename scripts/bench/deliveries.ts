/**
 * Delivery throughput: outbox rows delivered per second to a local webhook.
 *
 *   npm run bench:deliveries -- [--rows 20000] [--concurrency 128] [--per-destination 16]
 *                               [--poll-ms 10] [--receiver worker|main]
 *
 * Starts a throw-away embedded PostgreSQL in a temp dir, creates the delivery outbox, fills it
 * with `--rows` rows (webhook channels, all to one local receiver, as the notices projector
 * writes them; not measured), then starts the delivery worker with a short poll interval and
 * measures from its start until every row is marked delivered. All rows share one destination,
 * so `--per-destination` (the worker's attempts in flight to one receiver) bounds the rate. The receiver (a
 * node:http server verifying each HMAC signature, on a worker thread by default so it does not
 * share the delivery worker's event loop) counts deliveries per notice id: the run also reports
 * duplicates and bad signatures, which must be 0.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import knex from 'knex';
import pg from 'pg';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { startDeliveryWorker } from '../../src/delivery/worker.js';
import { migrateStores } from '../../src/postgres/migrations/apply.js';
import { commandLine, machine, startScratchPostgres } from './support/harness.js';

const SECRET = 'bench-webhook-secret';

interface ReceiverStats {
  requests: number;
  unique: number;
  duplicates: number;
  badSignatures: number;
}

/** The webhook receiver: answers 204 to validly signed POSTs, counting them per notice id. */
function startReceiver(onListening: (url: string) => void): () => ReceiverStats {
  const seen = new Set<string>();
  const stats: ReceiverStats = { requests: 0, unique: 0, duplicates: 0, badSignatures: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      stats.requests += 1;
      const body = Buffer.concat(chunks);
      const expected = createHmac('sha256', SECRET).update(body).digest();
      const header = String(req.headers['x-batchbook-signature'] ?? '');
      const given = Buffer.from(header.replace(/^sha256=/, ''), 'hex');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        stats.badSignatures += 1;
        res.writeHead(401).end();
        return;
      }
      const id = String(req.headers['x-batchbook-notice-id']);
      if (seen.has(id)) stats.duplicates += 1;
      else {
        seen.add(id);
        stats.unique += 1;
      }
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () =>
    onListening(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`),
  );
  return () => ({ ...stats });
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === 'receiver') {
  const stats = startReceiver((url) => parentPort!.postMessage({ url }));
  parentPort!.on('message', () => parentPort!.postMessage({ stats: stats() }));
}

interface Receiver {
  url: string;
  stats(): Promise<ReceiverStats>;
  close(): Promise<void>;
}

async function receiverOnWorker(): Promise<Receiver> {
  // The worker thread loads this file through tsx, as scripts/bench/orders.ts does.
  const bootstrap =
    `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};\n` +
    `register();\nawait import(${JSON.stringify(import.meta.url)});`;
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), {
    workerData: { role: 'receiver' },
  });
  const url = await new Promise<string>((resolve, reject) => {
    worker.once('message', (m: { url: string }) => resolve(m.url));
    worker.once('error', reject);
  });
  return {
    url,
    stats: () =>
      new Promise((resolve) => {
        worker.once('message', (m: { stats: ReceiverStats }) => resolve(m.stats));
        worker.postMessage('stats');
      }),
    close: async () => void (await worker.terminate()),
  };
}

async function receiverOnMain(): Promise<Receiver> {
  let stats: () => ReceiverStats = () => ({
    requests: 0,
    unique: 0,
    duplicates: 0,
    badSignatures: 0,
  });
  const url = await new Promise<string>((resolve) => {
    stats = startReceiver(resolve);
  });
  return { url, stats: async () => stats(), close: async () => undefined };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rows: { type: 'string', default: '20000' },
      concurrency: { type: 'string', default: '128' },
      'per-destination': { type: 'string', default: '16' },
      'poll-ms': { type: 'string', default: '10' },
      receiver: { type: 'string', default: 'worker' },
    },
  });
  const rows = Number(values.rows);
  const concurrency = Number(values.concurrency);
  const perDestination = Number(values['per-destination']);
  const pollMs = values['poll-ms'];

  const scratch = await startScratchPostgres();
  try {
    // The service's knex pool size.
    const db = knex({ client: 'pg', connection: scratch.url('bench'), pool: { min: 0, max: 16 } });
    scratch.onStop(() => db.destroy());
    const migrations = new pg.Pool({ connectionString: scratch.url('bench'), max: 1 });
    await migrateStores(migrations).finally(() => migrations.end());

    const receiver = values.receiver === 'main' ? await receiverOnMain() : await receiverOnWorker();
    scratch.onStop(() => receiver.close());

    const filled = performance.now();
    await db.raw(
      `INSERT INTO delivery.outbox (notice_id, subscription_id, account, channel, notice)
       SELECT 'notice-' || n, 'subscription-' || (n % 100), '0x' || lpad(to_hex(n % 1000), 40, '0'),
         jsonb_build_object('kind', 'webhook', 'url', ?::text, 'secret', ?::text),
         jsonb_build_object('id', 'notice-' || n, 'account', '0x' || lpad(to_hex(n % 1000), 40, '0'),
           'type', 'order_filled', 'message', 'Your order was filled.',
           'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'metadata', jsonb_build_object('orderId', '0x' || lpad(to_hex(n), 112, '0'),
             'executedAmount', '1000000000000000000'))
       FROM generate_series(1, ?) AS n`,
      [receiver.url, SECRET, rows],
    );
    await db.raw('ANALYZE delivery.outbox');
    const fillMs = performance.now() - filled;

    const config = loadConfig({ DELIVERY_POLL_INTERVAL_MS: pollMs, DATA_DIR: scratch.dir });
    const started = performance.now();
    const elu = performance.eventLoopUtilization();
    const worker = startDeliveryWorker({
      db,
      config: config.notifications,
      logger: pino({ level: 'warn' }),
      concurrency,
      perDestination,
      // The bench queues notices only, no verification requests.
      verified: () => Promise.reject(new Error('no verification request is queued here')),
    });
    scratch.onStop(() => worker.stop());
    let delivered = 0;
    while (delivered < rows) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const { rows: counted } = await db.raw<{ rows: { n: number }[] }>(
        'SELECT count(*)::int AS n FROM delivery.outbox WHERE delivered_at IS NOT NULL',
      );
      delivered = counted[0]!.n;
    }
    const elapsedMs = performance.now() - started;
    const utilisation = performance.eventLoopUtilization(elu).utilization;
    await worker.stop();
    const stats = await receiver.stats();
    const { rows: attempts } = await db.raw<{ rows: { n: number }[] }>(
      'SELECT coalesce(sum(attempts), 0)::int AS n FROM delivery.outbox',
    );

    console.log('\nbatchbook benchmark: deliveries to a local webhook (outbox → worker → HTTP)');
    console.log(`machine: ${machine()}`);
    console.log(`command: ${commandLine()}`);
    console.log(
      `setup: embedded PostgreSQL, ${rows} outbox rows written in ${(fillMs / 1000).toFixed(1)} s (not measured); receiver on the ${values.receiver === 'main' ? 'main thread' : 'worker thread'}`,
    );
    console.log(
      `worker: concurrency ${concurrency}, per destination ${perDestination}, poll ${pollMs} ms\n`,
    );
    console.log(
      `delivered ${delivered} in ${(elapsedMs / 1000).toFixed(2)} s: ${Math.round((delivered / elapsedMs) * 1000)} deliveries/s`,
    );
    console.log(
      `receiver: ${stats.requests} requests, ${stats.unique} notices, ${stats.duplicates} duplicates, ${stats.badSignatures} bad signatures; ${attempts[0]!.n} attempts recorded`,
    );
    console.log(`delivery worker's event loop utilisation: ${(utilisation * 100).toFixed(0)}%`);
  } finally {
    await scratch.stop();
  }
}

if (isMainThread) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
