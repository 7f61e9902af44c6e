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
 * `npm run bench:orders` measures the same ceiling in its own run and prints its throughput as
 * a share of it, which tells how much of the machine's limit the rest of an accepted order's
 * work leaves.
 *
 *   node --import tsx scripts/bench/ceiling.ts [--stages signature|ledger] [--orders 20000]
 */
import { parseArgs } from 'node:util';
import { CEILING_CONCURRENCY, measureCeiling } from './support/ceiling-run.js';
import { commandLine, loadAverage, machine } from './support/harness.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { stages: { type: 'string', default: 'ledger' }, orders: { type: 'string' } },
  });
  const stages = values.stages;
  if (stages !== 'signature' && stages !== 'ledger') {
    throw new Error('--stages must be signature or ledger');
  }
  const count = Number(values.orders ?? 20_000);
  if (!Number.isInteger(count) || count < 1) throw new Error('--orders must be a positive integer');

  const ceiling = await measureCeiling(stages, count);
  const perOrder = (seconds: number) => `${Math.round(seconds * 1e6)} µs`;
  console.log('batchbook benchmark: the ceiling for accepted orders on this machine');
  console.log(`machine: ${machine()}`);
  console.log(`command: ${commandLine()}`);
  console.log(
    `stages: HTTP + JSON + EIP-712 digest + ECDSA recovery${stages === 'ledger' ? ' + durable ledger append (group commit)' : ''}`,
  );
  console.log(
    `${count} orders at concurrency ${CEILING_CONCURRENCY}: ${Math.round(ceiling.ordersPerSecond)} orders/s, ` +
      `p50 ${ceiling.p50.toFixed(1)} ms, p99 ${ceiling.p99.toFixed(1)} ms`,
  );
  const cpu = ceiling.cpuPerOrder;
  console.log(
    `CPU per order: server ${perOrder(cpu.server)}, PostgreSQL ${perOrder(cpu.postgres)}, ` +
      `load generator ${perOrder(cpu.client)}`,
  );
  console.log(loadAverage());
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
