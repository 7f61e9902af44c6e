/**
 * Quote benchmark: POST /api/v1/quote against the service's own devnet, priced by its quoting
 * solver and its Uniswap-V2 pools (reserves read over JSON-RPC, native prices cached per block),
 * kept in the quote store before the answer. Prints quotes/s with p50/p99 at concurrency 1 and
 * 32.
 *
 *   npm run bench:quotes -- [quotes at concurrency 32, default 5000]
 *
 * Runs against a throw-away embedded PostgreSQL and anvil; rate limits are off (one client).
 */
import os from 'node:os';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startService } from '../../src/startup/start-service.js';
import { percentile, runLoad } from './support/load.js';
import { quoteParties, quoteRequest } from './support/quote-request.js';
import { startScratchPostgres } from './support/harness.js';

const quotes = Number(process.argv[2] ?? 5000);

async function main(): Promise<void> {
  const scratch = await startScratchPostgres('batchbook-bench-quotes-');
  try {
    const service = await startService(
      loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: scratch.dir,
        DEVNET_PORT: '0',
        DATABASE_URL: scratch.url('bench'),
        RATE_LIMIT_QUOTES_PER_SECOND: '0',
      }),
      { logger: createLogger('silent') },
    );
    scratch.onStop(() => service.stop());
    const parties = quoteParties(service.devnet!.deployment);
    const request = (i: number) => quoteRequest(parties, i);
    const url = new URL(service.url);
    console.log('batchbook benchmark: quotes (in-process service, devnet pools)');
    console.log(
      `machine: ${os.cpus()[0]?.model}, ${os.cpus().length} cores, node ${process.version}`,
    );
    await runLoad(
      url,
      Array.from({ length: 200 }, (_, i) => request(i)),
      8,
      200,
    );
    for (const [concurrency, count] of [
      [1, Math.min(1000, quotes)],
      [32, quotes],
    ] as const) {
      const load = await runLoad(
        url,
        Array.from({ length: count }, (_, i) => request(i)),
        concurrency,
        200,
      );
      const rate = (load.latencies.length / load.elapsedMs) * 1000;
      console.log(
        `concurrency ${concurrency}: ${load.latencies.length}/${count} quotes in ` +
          `${(load.elapsedMs / 1000).toFixed(1)} s = ${Math.round(rate)} quotes/s, ` +
          `p50 ${percentile(load.latencies, 50).toFixed(1)} ms, p99 ${percentile(load.latencies, 99).toFixed(1)} ms` +
          (load.firstError ? ` (first error: ${load.firstError})` : ''),
      );
    }
  } finally {
    await scratch.stop();
  }
}

await main();
