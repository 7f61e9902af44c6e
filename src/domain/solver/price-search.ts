/**
 * The search for the uniform prices at which a whole batch earns its traders the most: each
 * price vector tried is solved exactly by the optimizer (`priced-program.ts`), its answer made
 * exact to the atom (`exact-settlement.ts`) and scored as the referee scores it; the prices move
 * one token at a time, in shrinking steps, while that pays. The work is a number of programs,
 * not a time: the same auction gets the same answer on any machine.
 */
import type { Address } from '../events.js';
import type { OrderTerms } from '../order-terms.js';
import { directedScores, sum } from '../referee/score.js';
import { exactSettlement, type ExactContext } from './exact-settlement.js';
import type { LinearProgram, ProgramAnswer, ProgramSolver } from './linear-program.js';
import { pricedProgram, type ProgramInputs } from './priced-program.js';
import type { Solution } from './types.js';

/** Prices as factors of the market's (the native prices), per token; a missing token at 1. */
export type PriceFactors = ReadonlyMap<Address, number>;

/** Fixed-point bits of a price factor in the integer prices it makes. */
const FACTOR_BITS = 32;

/** Steps tried, as shares of a token's price: from 1 % down to 0.01 %. */
const STEPS = [0.01, 0.003, 0.001, 0.0003, 0.0001];

export interface Scored {
  solution: Solution;
  score: bigint;
  factors: PriceFactors;
}

export interface SearchInputs {
  program: ProgramInputs;
  nativePrices: ReadonlyMap<Address, bigint>;
  context: ExactContext;
  solver: ProgramSolver;
}

/** The tokens the inputs' orders trade. */
const tokensOf = (inputs: SearchInputs) =>
  new Set(inputs.program.orders.flatMap(({ order }) => [order.sellToken, order.buyToken]));

/** The program at `factors`, and its integer prices. */
function programAt(inputs: SearchInputs, factors: PriceFactors) {
  const prices = pricesOf(factors, inputs.nativePrices, tokensOf(inputs));
  return { prices, priced: pricedProgram(inputs.program, prices, factors) };
}

/** The integer prices of `factors`: each token's native price times its factor. */
export function pricesOf(
  factors: PriceFactors,
  nativePrices: ReadonlyMap<Address, bigint>,
  tokens: Iterable<Address>,
): Map<Address, bigint> {
  const prices = new Map<Address, bigint>();
  for (const token of tokens) {
    const factor = BigInt(Math.max(1, Math.round((factors.get(token) ?? 1) * 2 ** FACTOR_BITS)));
    prices.set(token, nativePrices.get(token)! * factor);
  }
  return prices;
}

/** The best exact settlement at `factors`, scored; null when none trades. */
export function settleAt(inputs: SearchInputs, factors: PriceFactors): Scored | null {
  const { prices, priced } = programAt(inputs, factors);
  if (priced.orders.length === 0) return null;
  const answer = relaxAndFix(inputs.solver, priced.program);
  if (answer === null) return null;
  const solution = exactSettlement(priced, answer.values, prices, inputs.context);
  if (solution === null) return null;
  const score = sum(directedScores(solution, inputs.context.orders, inputs.nativePrices));
  return score === null || score <= 0n ? null : { solution, score, factors };
}

/** How near 0 or 1 a relaxed whole column must be to count as decided. */
const DECIDED = 1e-6;

/**
 * The program solved by diving: relaxed (whole columns may take fractions), then each whole
 * column the answer leaves at 0 or 1 fixed there, and the fractional one nearest a bound fixed
 * at it (or, when that is infeasible, at the other) and the relaxation solved again, until
 * every whole column is whole. A relaxed optimum leaves at most one fractional column per row,
 * so this takes a handful of programs. HiGHS's branch and cut over the same program took
 * ~260 ms of CPU at 200 orders on the bench (its root node alone), the dive ~10, and it found
 * the same score there. Where the dive's choices leave nothing feasible, HiGHS's branch and cut
 * decides the columns the first relaxation left fractional. Null when nothing is feasible.
 */
export function relaxAndFix(solver: ProgramSolver, program: LinearProgram): ProgramAnswer | null {
  const columns = program.columns.map((c) => ({ ...c, integer: false }));
  const whole = program.columns.flatMap((c, i) => (c.integer ? [i] : []));
  const first = solver({ rows: program.rows, columns });
  if (first === null) return null;
  const decided = (i: number, value: number) => {
    const column = columns[i]!;
    if (value <= column.lower + DECIDED) column.upper = column.lower;
    else if (value >= column.upper - DECIDED) column.lower = column.upper;
    else return false;
    return true;
  };
  const fixedByFirst = new Map(
    whole.filter((i) => decided(i, first.values[i]!)).map((i) => [i, columns[i]!.lower]),
  );
  let answer: ProgramAnswer | null = first;
  while (answer !== null) {
    const values: Float64Array = answer.values;
    const open = whole
      .filter((i) => columns[i]!.lower !== columns[i]!.upper && !decided(i, values[i]!))
      .sort((i, j) => distanceToBound(values[i]!) - distanceToBound(values[j]!) || i - j)[0];
    if (open === undefined) return answer;
    const column = columns[open]!;
    const [lower, upper] = [column.lower, column.upper];
    const [near, far] = values[open]! >= (lower + upper) / 2 ? [upper, lower] : [lower, upper];
    column.lower = column.upper = near;
    answer = solver({ rows: program.rows, columns });
    if (answer !== null) continue;
    column.lower = column.upper = far;
    answer = solver({ rows: program.rows, columns });
  }
  return solver({
    rows: program.rows,
    columns: program.columns.map((c, i) => {
      const bound = fixedByFirst.get(i);
      return bound === undefined ? c : { ...c, lower: bound, upper: bound };
    }),
  });
}

/** How far a share is from being whole. */
const distanceToBound = (value: number) => Math.min(value, 1 - value);

/** The program with every column allowed to take fractions. */
function relaxedProgram(program: LinearProgram): LinearProgram {
  return { rows: program.rows, columns: program.columns.map((c) => ({ ...c, integer: false })) };
}

/** How many programs a search solves: relaxed ones to move the prices, exact ones to settle. */
export interface SearchEffort {
  relaxed: number;
  exact: number;
}

/** What the relaxed program (every fill-or-kill order divisible) promises at `factors`. */
function promiseAt(inputs: SearchInputs, factors: PriceFactors): number | null {
  const { priced } = programAt(inputs, factors);
  if (priced.orders.length === 0) return null;
  const answer = inputs.solver(relaxedProgram(priced.program));
  return answer === null ? null : answer.objective;
}

/**
 * The best settlement found from `starts`: each token's price (but one's, as only ratios
 * matter) moved up or down by each step in turn while the relaxed program promises more, then
 * the price vectors that promised most settled exactly, the best of them kept.
 */
export function searchPrices(
  inputs: SearchInputs,
  starts: readonly PriceFactors[],
  effort: SearchEffort,
): Scored | null {
  type Promising = { factors: PriceFactors; promise: number };
  let spent = 0;
  const tried: Promising[] = [];
  const tryAt = (factors: PriceFactors) => {
    spent++;
    const promise = promiseAt(inputs, factors);
    if (promise !== null) tried.push({ factors, promise });
    return promise;
  };
  let best: Promising | null = null;
  for (const start of starts) {
    const promise = tryAt(start);
    if (promise !== null && (best === null || promise > best.promise))
      best = { factors: start, promise };
  }
  if (best === null) return null;
  const tokens = movable(inputs.program.orders.map(({ order }) => order));
  for (const step of STEPS) {
    let moved = true;
    while (moved && spent < effort.relaxed) {
      moved = false;
      for (const token of tokens) {
        for (const direction of [1, -1]) {
          if (spent >= effort.relaxed) break;
          const factors: Map<Address, number> = new Map(best.factors);
          factors.set(token, (factors.get(token) ?? 1) * (1 + direction * step));
          const promise = tryAt(factors);
          if (promise === null || promise <= best.promise) continue;
          best = { factors, promise };
          moved = true;
          break;
        }
      }
    }
  }
  // The starts are settled too: a start the search moved away from may settle best.
  const searched = tried.filter(({ factors }) => !starts.includes(factors));
  const chosen = [
    ...searched.sort((p, q) => q.promise - p.promise).slice(0, effort.exact - starts.length),
    ...starts.map((factors) => ({ factors })),
  ];
  let settled: Scored | null = null;
  for (const { factors } of chosen) {
    const found = settleAt(inputs, factors);
    if (found !== null && (settled === null || found.score > settled.score)) settled = found;
  }
  return settled;
}
/**
 * The tokens whose prices the search moves: every traded one but the most traded (its price
 * anchors the others), most traded first.
 */
function movable(orders: readonly OrderTerms[]): Address[] {
  const count = new Map<Address, number>();
  for (const o of orders) {
    for (const token of [o.sellToken, o.buyToken]) count.set(token, (count.get(token) ?? 0) + 1);
  }
  return [...count]
    .sort((p, q) => q[1] - p[1] || (p[0] < q[0] ? -1 : 1))
    .slice(1)
    .map(([token]) => token);
}

/** The factors of a solution's own prices against the market's, for its tokens. */
export function factorsOf(
  solution: Solution,
  nativePrices: ReadonlyMap<Address, bigint>,
): PriceFactors {
  const entries = [...solution.clearingPrices].map(
    ([token, price]) => [token, Number(price) / Number(nativePrices.get(token)!)] as const,
  );
  // Only ratios matter: scaled so that their geometric mean is 1.
  const mean = Math.exp(entries.reduce((s, [, f]) => s + Math.log(f), 0) / entries.length);
  return new Map(entries.map(([token, f]) => [token, f / mean]));
}
