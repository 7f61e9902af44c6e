/**
 * Transfer-check benchmark: the order submission's chain check (`transferProblem` of
 * src/chain/order-checks.ts: one `eth_call` of transferFrom(owner → settlement) from the vault
 * relayer for a funded owner) against a throw-away anvil with the devnet deployed, `--concurrency`
 * checks in flight at once as under concurrent submissions.
 *
 *   npm run bench:transfer-checks -- [--checks 5000] [--concurrency 32] [--owners 64] [--rounds 3]
 *
 * Prints per round checks/s with p50/p99 latency, the HTTP requests sent to the node, and the
 * CPU per check of this process (`process.cpuUsage`, the service thread's share) and of anvil
 * (from /proc; Linux only). Funding the owners is not measured.
 */
import diagnostics from 'node:diagnostics_channel';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { Wallet } from 'ethers';
import { createOrderChainChecks, type OrderChainChecks } from '../../src/chain/order-checks.js';
import { createChainRpc } from '../../src/chain/rpc.js';
import type { Address } from '../../src/domain/events.js';
import { networkByName } from '../../src/domain/networks.js';
import { startTestChain } from '../../test/support/chain.js';
import { percentile } from './support/load.js';
import { anvilCpuSeconds, commandLine, loadAverage, machine, table } from './support/harness.js';

const { values } = parseArgs({
  options: {
    checks: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '32' },
    owners: { type: 'string', default: '64' },
    rounds: { type: 'string', default: '3' },
  },
});
const checks = Number(values.checks);
const concurrency = Number(values.concurrency);

let httpRequests = 0;
diagnostics.subscribe('http.client.request.start', () => httpRequests++);

async function round(
  name: string,
  chainChecks: OrderChainChecks,
  owners: Address[],
  token: Address,
) {
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < checks; i = next++) {
      const started = performance.now();
      const problem = await chainChecks.transferProblem({
        owner: owners[i % owners.length]!,
        token,
        sellAmount: 10n ** 18n,
        fullBalanceCheck: true,
      });
      if (problem) throw new Error(`${name}: unexpected ${JSON.stringify(problem)}`);
      latencies.push(performance.now() - started);
    }
  };
  const requestsBefore = httpRequests;
  const anvilBefore = anvilCpuSeconds();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const anvil = anvilCpuSeconds() - anvilBefore;
  latencies.sort((a, b) => a - b);
  return [
    name,
    Math.round(checks / seconds).toLocaleString('en-US'),
    `${percentile(latencies, 50).toFixed(1)} ms`,
    `${percentile(latencies, 99).toFixed(1)} ms`,
    ((httpRequests - requestsBefore) / checks).toFixed(3),
    `${Math.round((cpu.user + cpu.system) / checks)} µs`,
    `${Math.round((anvil * 1e6) / checks)} µs`,
  ];
}

async function main(): Promise<void> {
  const chain = await startTestChain();
  const devnet = networkByName('devnet')!;
  const rpc = createChainRpc(devnet, chain.rpcUrl);
  try {
    const token = chain.deployment.tokens[0]!.address;
    const owners = Array.from(
      { length: Number(values.owners) },
      () => Wallet.createRandom().address.toLowerCase() as Address,
    );
    for (const owner of owners) await chain.fund(owner, token, 10n ** 24n);
    const modes: [string, OrderChainChecks][] = [
      // As before batching: every call its own HTTP request (the `batched` option dropped).
      [
        'one request per call',
        createOrderChainChecks(
          { ...rpc, request: (what, request) => rpc.request(what, request) },
          devnet,
        ),
      ],
      ['one batch per turn', createOrderChainChecks(rpc, devnet)],
    ];
    // A warm-up round of each, then the measured rounds in turn: neighbours on a shared
    // machine then weigh on every mode alike.
    for (const [name, chainChecks] of modes) await round(name, chainChecks, owners, token);
    const rows = [
      ['mode', 'checks/s', 'p50', 'p99', 'HTTP req/check', 'CPU/check', 'anvil CPU/check'],
    ];
    for (let r = 0; r < Number(values.rounds); r++) {
      for (const [name, chainChecks] of modes)
        rows.push(await round(name, chainChecks, owners, token));
    }
    console.log(`${commandLine()}\n${machine()}`);
    console.log(
      `${checks} transfer checks per round at concurrency ${concurrency}, ${owners.length} owners\n`,
    );
    console.log(table(rows));
    console.log(`\n${loadAverage()}`);
  } finally {
    rpc.close();
    await chain.stop();
  }
}

await main();
