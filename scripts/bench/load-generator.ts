/**
 * What the benchmarks' own load generator costs: the HTTP benchmarks run it beside the service
 * on the same two cores, so every microsecond of CPU it spends per request is one the service
 * does not get. Sends GETs at concurrency 32 to a bare `node:http` server in a child process
 * answering ~1.5 KB of JSON (an order's size), and prints the requests per second and this
 * process's CPU per request.
 *
 *   node --import tsx scripts/bench/load-generator.ts [requests per round, default 30000]
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { runLoad } from './support/load.js';

const ROUNDS = 3;
const CONCURRENCY = 32;

function serve(): void {
  const body = JSON.stringify({ order: 'x'.repeat(1500) });
  const server = http.createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => process.send!((server.address() as AddressInfo).port));
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 30_000);
  const server = fork(fileURLToPath(import.meta.url), ['--serve'], {
    execArgv: ['--import', 'tsx'],
  });
  try {
    const port = await new Promise<number>((resolve) => server.once('message', resolve));
    const url = new URL(`http://127.0.0.1:${port}`);
    const requests = Array.from({ length: count }, () => ({ method: 'GET' as const, path: '/' }));
    console.log('batchbook benchmark: the load generator’s own cost (a bare server, c=32)');
    console.log(`machine: ${os.cpus().length} cores, node ${process.version}`);
    for (let round = 1; round <= ROUNDS; round++) {
      const cpu = process.cpuUsage();
      const load = await runLoad(url, requests, CONCURRENCY, 200);
      const { user, system } = process.cpuUsage(cpu);
      if (load.latencies.length !== count) throw new Error(`failed: ${load.firstError}`);
      const perSecond = Math.round((count / load.elapsedMs) * 1000);
      const cpuPerRequest = ((user + system) / count).toFixed(1);
      console.log(`round ${round}: ${perSecond} req/s, ${cpuPerRequest} µs of CPU per request`);
    }
  } finally {
    server.kill();
  }
}

if (process.argv.includes('--serve')) serve();
else
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
