/**
 * The machine's ceiling for accepted orders: what the two stages every accepted order needs
 * (its EIP-712 signature recovered, and a durable append to the ledger) give on these cores
 * with nothing else around them. A bare `node:http` server in a child process parses the
 * order, hashes and recovers it with the service's own fast path (`src/domain`), appends
 * `OrderPlaced` through the PostgreSQL ledger's group commit (`--stages signature` stops
 * before the append) and answers `201` with the UID; no Koa, schema, app data, rules, chain
 * check, quote or projection. The load generator of the HTTP benches sends 20,000 pre-signed
 * orders at concurrency 32 from this process.
 *
 * Set beside `npm run bench:orders`, it tells how much of the target is left for the
 * rest of an accepted order's work on this machine.
 *
 *   node --import tsx scripts/bench/ceiling.ts [--stages signature|ledger] [--orders 20000]
 */
import { randomUUID } from 'node:crypto';
import { fork } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SigningKey, Wallet } from 'ethers';
import pg from 'pg';
import { computeOrderUid, domainSeparator, orderDigest } from '../../src/domain/eip712.js';
import type { Address, Hex, OrderData } from '../../src/domain/events.js';
import { recoverOrderSigner } from '../../src/domain/signatures.js';
import { createPostgresLedger } from '../../src/ledger/postgres.js';
import { migrateStores } from '../../src/postgres/migrations/apply.js';
import type { Ledger } from '../../src/ledger/port.js';
import {
  CHAIN_ID,
  createFastOrderSigner,
  SETTLEMENT_CONTRACT,
  TOKENS,
} from '../../test/support/signing.js';
import { percentile, runLoad, type LoadRequest } from './support/load.js';
import {
  clusterCpuSeconds,
  commandLine,
  loadAverage,
  machine,
  processCpuSeconds,
  startScratchPostgres,
} from './support/harness.js';

type Stages = 'signature' | 'ledger';

const CONCURRENCY = 32;
const WARMUP = 2_000;
const OWNERS = 50;

// ---------------------------------------------------------------------------------------------
// The server (child process)
// ---------------------------------------------------------------------------------------------

async function serve(stages: Stages, databaseUrl: string): Promise<void> {
  const separator = domainSeparator(CHAIN_ID.devnet, SETTLEMENT_CONTRACT);
  let ledger: Ledger | null = null;
  if (stages === 'ledger') {
    // The service's ledger pool size (src/startup/infrastructure.ts).
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 16 });
    pool.on('error', () => undefined); // the cluster stops with the bench
    await migrateStores(pool);
    ledger = createPostgresLedger({ pool });
  }

  /** What the bench's orders carry: the SDK's shape, app data as document and hash. */
  type Submitted = Omit<OrderData, 'appData'> & { appDataHash: Hex; from: Address; signature: Hex };

  const accept = async (text: string): Promise<[number, string]> => {
    const body = JSON.parse(text) as Submitted;
    const digest = orderDigest({ ...body, appData: body.appDataHash }, separator);
    const signer = recoverOrderSigner('eip712', digest, body.signature);
    if (signer === null || signer !== body.from.toLowerCase()) {
      return [400, '{"errorType":"InvalidSignature","description":"signer differs from from"}'];
    }
    const uid = computeOrderUid(digest, signer, body.validTo);
    const event = { id: randomUUID(), type: 'OrderPlaced', version: 1, data: { uid, body } };
    await ledger?.append(`order-${uid}`, [{ ...event, metadata: {} }], 'noStream');
    return [201, JSON.stringify(uid)];
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      accept(Buffer.concat(chunks).toString()).then(
        ([status, json]) => {
          res.writeHead(status, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(json),
          });
          res.end(json);
        },
        (error: unknown) => res.writeHead(500).end(String(error)),
      );
    });
  });
  server.listen(0, '127.0.0.1', () => process.send!((server.address() as AddressInfo).port));
}

// ---------------------------------------------------------------------------------------------
// The bench
// ---------------------------------------------------------------------------------------------

function signedOrders(count: number): LoadRequest[] {
  const keys = Array.from(
    { length: OWNERS },
    () => new SigningKey(Wallet.createRandom().privateKey),
  );
  const signer = createFastOrderSigner(CHAIN_ID.devnet);
  const validTo = Math.floor(Date.now() / 1000) + 3600;
  return Array.from({ length: count }, (_, i) => {
    const { body } = signer.sign(keys[i % OWNERS]!, {
      // Distinct amounts make every order (and so every UID) distinct.
      sellAmount: String(1_000_000_000_000_000n + BigInt(i)),
      buyAmount: '2000000000000000000000',
      sellToken: TOKENS.WETH,
      buyToken: TOKENS.DAI,
      validTo,
    });
    return { method: 'POST', path: '/orders', body: Buffer.from(JSON.stringify(body)) };
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { stages: { type: 'string', default: 'ledger' }, orders: { type: 'string' } },
  });
  const stages = values.stages as Stages;
  if (stages !== 'signature' && stages !== 'ledger') {
    throw new Error('--stages must be signature or ledger');
  }
  const count = Number(values.orders ?? 20_000);
  if (!Number.isInteger(count) || count < 1) throw new Error('--orders must be a positive integer');

  const scratch = await startScratchPostgres('batchbook-bench-ceiling-');
  try {
    const server = fork(fileURLToPath(import.meta.url), ['--serve', stages, scratch.url('bench')], {
      execArgv: ['--import', 'tsx'],
    });
    scratch.onStop(async () => void server.kill());
    const port = await new Promise<number>((resolve) => server.once('message', resolve));
    const url = new URL(`http://127.0.0.1:${port}`);
    const orders = signedOrders(WARMUP + count);

    // Warm-up: the server's JIT, the pool's connections, the append's prepared plans.
    await runLoad(url, orders.slice(0, WARMUP), CONCURRENCY, 201);
    const serverCpu = () => processCpuSeconds(({ pid }) => pid === server.pid, false);
    const before = { server: serverCpu(), postgres: clusterCpuSeconds(scratch.dir) };
    const client = process.cpuUsage();
    const load = await runLoad(url, orders.slice(WARMUP), CONCURRENCY, 201);
    const { user, system } = process.cpuUsage(client);
    const accepted = load.latencies.length;
    if (accepted !== count)
      throw new Error(`${count - accepted} orders failed: ${load.firstError}`);

    const perOrder = (seconds: number) => `${Math.round((seconds * 1e6) / count)} µs`;
    console.log('batchbook benchmark: the ceiling for accepted orders on this machine');
    console.log(`machine: ${machine()}`);
    console.log(`command: ${commandLine()}`);
    console.log(
      `stages: HTTP + JSON + EIP-712 digest + ECDSA recovery${stages === 'ledger' ? ' + durable ledger append (group commit)' : ''}`,
    );
    console.log(
      `${count} orders at concurrency ${CONCURRENCY}: ${Math.round((count / load.elapsedMs) * 1000)} orders/s, ` +
        `p50 ${percentile(load.latencies, 50).toFixed(1)} ms, p99 ${percentile(load.latencies, 99).toFixed(1)} ms`,
    );
    console.log(
      `CPU per order: server ${perOrder(serverCpu() - before.server)}, ` +
        `PostgreSQL ${perOrder(clusterCpuSeconds(scratch.dir) - before.postgres)}, ` +
        `load generator ${perOrder((user + system) / 1e6)}`,
    );
    console.log(loadAverage());
  } finally {
    await scratch.stop();
  }
}

const serveAt = process.argv.indexOf('--serve');
if (serveAt >= 0) {
  void serve(process.argv[serveAt + 1] as Stages, process.argv[serveAt + 2]!);
} else {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
