/**
 * How much of the achievable surplus the built-in solver finds. Seeded random auctions
 * (`solver-quality/instances.ts`) of 10, 50 and 200 orders are solved by today's pair-by-pair
 * solver (A: `solve` without an optimizer) and by the built-in solver as the service runs it
 * (B: with HiGHS); each solution is checked by the settlement contract's rules
 * (`checkSolution`: whole atoms, limits on the signed amounts, fill-or-kill whole, swaps the
 * pairs accept with their input at hand, no token short) and the gas cap, and its CIP-38 score
 * set against the best uniform-price settlement found by an exact optimizer over price vectors
 * (`solver-quality/reference.ts`) and against a proven upper bound (`solver-quality/bound.ts`).
 * Then one auction of `--large` orders times B alone, against the auction's solve deadline.
 *
 *   npm run bench:solver-quality -- [--seeds 8] [--sizes 10,50,200] [--large 10000]
 *     [--reference-programs 60]
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config.js';
import { programSolver } from '../../src/auction/linear-programs.js';
import { directedScores, sum } from '../../src/domain/referee/score.js';
import { MAX_SETTLEMENT_GAS, checkSolution } from '../../src/domain/solver/execution.js';
import { factorsOf } from '../../src/domain/solver/price-search.js';
import { solve } from '../../src/domain/solver/solve.js';
import type { Solution, SolverAuction } from '../../src/domain/solver/types.js';
import { scoreBound } from './support/solver-quality/bound.js';
import { instance } from './support/solver-quality/instances.js';
import { bestUniformSettlement } from './support/solver-quality/reference.js';
import { commandLine, loadAverage, loadAverages, machine, table } from './support/harness.js';

const { values: args } = parseArgs({
  options: {
    seeds: { type: 'string', default: '8' },
    sizes: { type: 'string', default: '10,50,200' },
    large: { type: 'string', default: '10000' },
    'reference-programs': { type: 'string', default: '60' },
  },
});
const seeds = Number(args.seeds);
const sizes = args.sizes.split(',').map(Number);
const large = Number(args.large);
const referencePrograms = Number(args['reference-programs']);

const config = loadConfig({});
const slippageBps = BigInt(config.auction.builtinSolverSlippageBps);
const solveTimeoutMs = config.auction.solveTimeoutMs;

interface Run {
  score: number;
  ms: number;
  best: Solution | null;
}

/** Solves `auction`, checks every solution, and returns the best one's score in native tokens. */
function run(auction: SolverAuction, solver: Parameters<typeof solve>[2]): Run {
  const started = performance.now();
  const solutions = solve(auction, { slippageBps }, solver);
  const ms = performance.now() - started;
  const orders = new Map(auction.orders.map((o) => [o.uid, o]));
  const pools = new Map(auction.pools.map((p) => [p.address, p]));
  let best: { solution: Solution; score: bigint } | null = null;
  for (const solution of solutions) {
    const problem = checkSolution(solution, orders, pools);
    if (problem !== null) throw new Error(`auction ${auction.id}: infeasible solution: ${problem}`);
    if (solution.gas > MAX_SETTLEMENT_GAS)
      throw new Error(`auction ${auction.id}: ${solution.gas} gas is over the cap`);
    const score = sum(directedScores(solution, orders, auction.nativePrices));
    if (score === null || score <= 0n) throw new Error(`auction ${auction.id}: no score`);
    if (best === null || score > best.score) best = { solution, score };
  }
  return { score: best === null ? 0 : Number(best.score) / 1e18, ms, best: best?.solution ?? null };
}

const median = (xs: readonly number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const ms = (x: number) => `${x.toFixed(0)} ms`;

interface Row {
  a: Run;
  b: Run;
  /** The best uniform-price settlement found: the reference's, or a solver's where higher. */
  best: number;
  bound: number;
}

/** One size's line of the table: shares of the best found, B against A, the bound, times. */
function summary(size: number, rows: readonly Row[]): string[] {
  const share = (pick: (r: Row) => number) => rows.map((r) => (r.best > 0 ? pick(r) / r.best : 1));
  const [aShare, bShare] = [share((r) => r.a.score), share((r) => r.b.score)];
  const gain = rows.map((r) => (r.a.score > 0 ? r.b.score / r.a.score : Infinity));
  const gap = rows.map((r) => (r.bound > 0 ? r.best / r.bound : 1));
  const times = (pick: (r: Row) => number) => rows.map(pick);
  return [
    `${size}`,
    `${pct(median(aShare))} / ${pct(Math.min(...aShare))}`,
    `${pct(median(bShare))} / ${pct(Math.min(...bShare))}`,
    `${median(gain).toFixed(2)}× / ${Math.min(...gain).toFixed(2)}×`,
    `${pct(median(gap))} / ${pct(Math.min(...gap))}`,
    `${ms(median(times((r) => r.a.ms)))} / ${ms(Math.max(...times((r) => r.a.ms)))}`,
    `${ms(median(times((r) => r.b.ms)))} / ${ms(Math.max(...times((r) => r.b.ms)))}`,
  ];
}

async function main(): Promise<void> {
  const optimizer = await programSolver();
  const exact = await programSolver({ relativeGap: 1e-6, maxNodes: 20_000, presolve: false });
  // HiGHS's WebAssembly runs several times slower until the engine has compiled it fully (the
  // service's first auction pays ~1 s for it): one auction solved first, not counted.
  run(instance(0, { orders: 50 }), optimizer);
  console.log('batchbook benchmark: solver quality (built-in solver against an exact optimizer)');
  console.log(`${commandLine()}\n${machine()}`);
  console.log(
    `started ${new Date().toISOString()}, load average ${loadAverages()}; seeds 1–${seeds}, ` +
      `slippage ${slippageBps} bps, gas cap ${MAX_SETTLEMENT_GAS}`,
  );
  const lines = [
    [
      'orders',
      'A: pair by pair, median / worst of best found',
      'B: built-in, median / worst of best found',
      'B / A, median / worst',
      'best found / bound, median / worst',
      'A time, median / max',
      'B time, median / max',
    ],
  ];
  for (const size of sizes) {
    const rows: Row[] = [];
    for (let seed = 1; seed <= seeds; seed++) {
      const auction = instance(seed, { orders: size });
      const a = run(auction, undefined);
      const b = run(auction, optimizer);
      const starts = [
        new Map(),
        ...[a.best, b.best].flatMap((s) => (s ? [factorsOf(s, auction.nativePrices)] : [])),
      ];
      const reference = bestUniformSettlement(
        auction,
        starts,
        exact,
        MAX_SETTLEMENT_GAS,
        referencePrograms,
      );
      const bound = scoreBound(auction, exact, MAX_SETTLEMENT_GAS);
      rows.push({ a, b, best: Math.max(reference.score, a.score, b.score), bound });
      console.error(
        `  ${size} orders, seed ${seed}: A ${a.score.toFixed(5)} (${ms(a.ms)}), B ${b.score.toFixed(5)} (${ms(b.ms)}), ` +
          `best found ${reference.score.toFixed(5)} (${reference.programs} programs), bound ${bound.toFixed(5)}`,
      );
    }
    lines.push(summary(size, rows));
  }
  console.log(table(lines));
  if (large > 0) {
    const auction = instance(1, { orders: large });
    const a = run(auction, undefined);
    const b = run(auction, optimizer);
    console.log(
      `${large} orders: A ${a.score.toFixed(5)} in ${ms(a.ms)}, B ${b.score.toFixed(5)} in ${ms(b.ms)} ` +
        `(solve deadline ${solveTimeoutMs} ms)`,
    );
  }
  console.log(loadAverage());
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
