/**
 * The machine's ceiling for accepted orders, measured (see ceiling.ts): the ceiling server
 * (ceiling-server.ts) in a child process on a scratch PostgreSQL, the HTTP benches' load
 * generator sending pre-signed orders at concurrency 32 from this process, after a warm-up.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SigningKey, Wallet } from 'ethers';
import { CHAIN_ID, createFastOrderSigner, TOKENS } from '../../../test/support/signing.js';
import type { CeilingStages } from './ceiling-server.js';
import { percentile, runLoad, type LoadRequest } from './load.js';
import { clusterCpuSeconds, processCpuSeconds, startScratchPostgres } from './harness.js';

export const CEILING_CONCURRENCY = 32;
const WARMUP = 2_000;
const OWNERS = 50;
const SERVER = fileURLToPath(new URL('./ceiling-server.ts', import.meta.url));

export interface Ceiling {
  stages: CeilingStages;
  orders: number;
  ordersPerSecond: number;
  p50: number;
  p99: number;
  /** CPU seconds per order of the server, PostgreSQL and this process (the load generator). */
  cpuPerOrder: { server: number; postgres: number; client: number };
}

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

/** Measures the ceiling over `count` orders after the warm-up. */
export async function measureCeiling(stages: CeilingStages, count: number): Promise<Ceiling> {
  const scratch = await startScratchPostgres('batchbook-bench-ceiling-');
  try {
    const server = fork(SERVER, [stages, scratch.url('bench')], { execArgv: ['--import', 'tsx'] });
    scratch.onStop(async () => void server.kill());
    const port = await new Promise<number>((resolve) => server.once('message', resolve));
    const url = new URL(`http://127.0.0.1:${port}`);
    const orders = signedOrders(WARMUP + count);

    // Warm-up: the server's JIT, the pool's connections, the append's prepared plans.
    await runLoad(url, orders.slice(0, WARMUP), CEILING_CONCURRENCY, 201);
    const serverCpu = () => processCpuSeconds(({ pid }) => pid === server.pid, false);
    const before = { server: serverCpu(), postgres: clusterCpuSeconds(scratch.dir) };
    const client = process.cpuUsage();
    const load = await runLoad(url, orders.slice(WARMUP), CEILING_CONCURRENCY, 201);
    const { user, system } = process.cpuUsage(client);
    const accepted = load.latencies.length;
    if (accepted !== count)
      throw new Error(`${count - accepted} orders failed: ${load.firstError}`);
    return {
      stages,
      orders: count,
      ordersPerSecond: (count / load.elapsedMs) * 1000,
      p50: percentile(load.latencies, 50),
      p99: percentile(load.latencies, 99),
      cpuPerOrder: {
        server: (serverCpu() - before.server) / count,
        postgres: (clusterCpuSeconds(scratch.dir) - before.postgres) / count,
        client: (user + system) / 1e6 / count,
      },
    };
  } finally {
    await scratch.stop();
  }
}
