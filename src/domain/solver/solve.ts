/**
 * The built-in solver: for each token pair, the coincidences of wants, the pair's orders with
 * their net through the pools, and each order alone through the pools; rings of three tokens
 * (`rings.ts`) where they pay; then one batch that takes the best of these that fit together.
 * Every proposal is checked as the contract would execute it before it is offered.
 */
import type { Pool } from '../amm.js';
import type { Address, OrderUid } from '../events.js';
import { poolsByPair, routeOrder, routePair, routesBetween } from './amm-route.js';
import { coincidences } from './coincidence.js';
import type { OrderTerms } from '../order-terms.js';
import { MAX_SOLUTIONS_PER_SOLVER } from '../referee/competition.js';
import { directedScores, sum, undercuts } from '../referee/score.js';
import { Batch } from './batch.js';
import { MAX_SETTLEMENT_GAS, checkSolution, settlementGas, solvable } from './execution.js';
import type { ProgramSolver } from './linear-program.js';
import { optimizedBatch } from './optimized-batch.js';
import { rings } from './rings.js';
import type { Proposal, Solution, SolveOptions, SolverAuction } from './types.js';

/** Swaps sized on the pools exactly as read. */
const EXACT: SolveOptions = { slippageBps: 0n };

/** Solutions offered per auction: no more than the referee takes from one solver. */
export const MAX_SOLUTIONS = MAX_SOLUTIONS_PER_SOLVER;

/** Orders of one side of a pair the solver works with: half a full settlement's trades each. */
const ORDERS_PER_SIDE = (() => {
  let trades = 1;
  while (settlementGas(trades + 1, 2) <= MAX_SETTLEMENT_GAS) trades++;
  return Math.floor(trades / 2);
})();

/**
 * The side's orders most likely to trade, up to `ORDERS_PER_SIDE`: those asking the least per
 * atom sold (the most generous limit prices) first.
 */
function mostGenerous(side: OrderTerms[]): OrderTerms[] {
  if (side.length <= ORDERS_PER_SIDE) return side;
  return side
    .sort((p, q) => {
      const [a, b] = [p.buyAmount * q.sellAmount, q.buyAmount * p.sellAmount];
      return a < b ? -1 : a > b ? 1 : 0;
    })
    .slice(0, ORDERS_PER_SIDE);
}

/**
 * Reference §6 step 4, the fairness filter: two of our own solutions offered together must not
 * have one filter the other out.
 */
function fairTogether(p: ReadonlyMap<string, bigint>, q: ReadonlyMap<string, bigint>): boolean {
  return !undercuts(p, q) && !undercuts(q, p);
}

interface Scored<T> {
  item: T;
  score: bigint;
}

const byScore = <T>(p: Scored<T>, q: Scored<T>) =>
  p.score === q.score ? 0 : p.score > q.score ? -1 : 1;

/**
 * Whether two offered solutions may both win and both settle: the competition lets solutions
 * trading different directed pairs win together, and each settles on its own, priced at the
 * reserves of the cut. Two that swap through one pool would each move it; the second would
 * revert. Solutions sharing a directed pair never win together, so they may share pools.
 */
function settleTogether(
  p: { item: Solution; pairs: ReadonlyMap<string, bigint> },
  q: { item: Solution; pairs: ReadonlyMap<string, bigint> },
): boolean {
  if ([...p.pairs.keys()].some((pair) => q.pairs.has(pair))) return true;
  const pools = new Set(p.item.swaps.map((s) => s.pool));
  return !q.item.swaps.some((s) => pools.has(s.pool));
}

/** Every proposal for the pair {x, y}: coincidences, the pair through the pools, each order alone. */
function pairProposals(
  orders: readonly OrderTerms[],
  x: Address,
  y: Address,
  pools: ReadonlyMap<string, readonly Pool[]>,
  auction: SolverAuction,
  options: SolveOptions,
): Proposal[] {
  const routes = new Map([
    [x, routesBetween(x, y, pools, auction.wrappedNative, options.slippageBps)],
    [y, routesBetween(y, x, pools, auction.wrappedNative, options.slippageBps)],
  ]);
  return [
    ...coincidences(orders, x, y, auction.nativePrices),
    ...routePair(orders, x, y, routes, auction.nativePrices),
    ...orders.flatMap((order) => routeOrder(order, routes.get(order.sellToken)!) ?? []),
  ];
}

/**
 * Whether `ring` pays: it scores more than the proposals it displaces, the best one trading each
 * of its orders (counted once). Those would otherwise settle its orders, and the competition,
 * taking the best-scoring solution first, would let the ring block them however much more they
 * earn together. No pair proposal holds two legs of a ring: its legs are three different pairs.
 */
function pays(ring: Scored<Proposal>, proposals: readonly Scored<Proposal>[]): boolean {
  const uids = new Set(ring.item.solution.trades.map((t) => t.uid));
  const displaced = new Map<OrderUid, Scored<Proposal>>();
  for (const proposal of proposals) {
    for (const trade of proposal.item.solution.trades) {
      if (!uids.has(trade.uid)) continue;
      const best = displaced.get(trade.uid);
      if (best === undefined || proposal.score > best.score) displaced.set(trade.uid, proposal);
    }
  }
  const value = [...new Set(displaced.values())].reduce((total, p) => total + p.score, 0n);
  return ring.score > value;
}

/** Starts of the optimizer's price search taken from the pair-by-pair solutions: the best ones. */
const SEARCH_STARTS = 3;

/**
 * The built-in solver's solutions for `auction`, best score first: the batch of the best
 * proposals that fit together (with the rings that pay, when that scores more), the rings that
 * pay and the best single proposals, and with `optimizer` the whole auction settled at the
 * prices its search finds (`optimized-batch.ts`); at most `MAX_SOLUTIONS`, none unfair to
 * another. Only sound solutions with a positive score are offered (the reference drops a zero
 * score). Swaps are sized with `options.slippageBps` (none by default).
 */
export function solve(
  auction: SolverAuction,
  options: SolveOptions = EXACT,
  optimizer?: ProgramSolver,
): Solution[] {
  const orders = new Map(auction.orders.map((order) => [order.uid, order]));
  const poolIndex = new Map(auction.pools.map((pool) => [pool.address, pool]));
  const pools = poolsByPair(auction.pools);
  const byPair = new Map<string, OrderTerms[]>();
  for (const order of auction.orders) {
    if (!solvable(order, auction.nativePrices)) continue;
    const key = [order.sellToken, order.buyToken].sort().join('/');
    const pair = byPair.get(key);
    if (pair === undefined) byPair.set(key, [order]);
    else pair.push(order);
  }
  const scoresOf = (solution: Solution) =>
    checkSolution(solution, orders, poolIndex) === null
      ? directedScores(solution, orders, auction.nativePrices)
      : null;
  type Candidate = Scored<Proposal> & { pairs: Map<string, bigint> };
  const proposals: Candidate[] = [];
  const consider = (proposal: Proposal, into: Candidate[]) => {
    if (proposal.solution.gas > MAX_SETTLEMENT_GAS) return;
    const pairs = scoresOf(proposal.solution);
    const value = sum(pairs);
    if (pairs && value !== null && value > 0n) into.push({ item: proposal, score: value, pairs });
  };
  const solvableOrders: OrderTerms[] = [];
  for (const [key, pairOrders] of byPair) {
    const [x, y] = key.split('/') as [Address, Address];
    solvableOrders.push(...pairOrders);
    const offered = [
      ...mostGenerous(pairOrders.filter((o) => o.sellToken === x)),
      ...mostGenerous(pairOrders.filter((o) => o.sellToken === y)),
    ];
    for (const proposal of pairProposals(offered, x, y, pools, auction, options)) {
      consider(proposal, proposals);
    }
  }
  proposals.sort(byScore);
  const ringCandidates: Candidate[] = [];
  for (const ring of rings(solvableOrders, auction.nativePrices)) consider(ring, ringCandidates);
  const paying = ringCandidates.filter((ring) => pays(ring, proposals)).sort(byScore);

  const batchOf = (taken: readonly Candidate[]) => {
    const batch = new Batch(orders, (solution) =>
      sum(directedScores(solution, orders, auction.nativePrices)),
    );
    for (const { item, score } of taken) batch.add(item, score);
    const merged = batch.parts.length > 1 ? batch.solution() : null;
    const pairs = merged && scoresOf(merged);
    const score = sum(pairs);
    return merged && pairs && score !== null && score > 0n ? { item: merged, score, pairs } : null;
  };
  // With rings in, the batch may lose what their orders would have earned elsewhere: the one
  // scoring more is offered.
  const plain = batchOf(proposals);
  const ringed = paying.length > 0 ? batchOf([...proposals, ...paying].sort(byScore)) : null;
  const merged = ringed !== null && (plain === null || ringed.score > plain.score) ? ringed : plain;
  const candidates = [...proposals, ...paying].map(({ item, score, pairs }) => ({
    item: item.solution,
    score,
    pairs,
  }));
  if (merged !== null) candidates.push(merged);
  candidates.sort(byScore);
  if (optimizer !== undefined) {
    const starts = candidates.slice(0, SEARCH_STARTS).map(({ item }) => item);
    const batch = optimizedBatch(auction, options, optimizer, starts);
    const pairs = batch && scoresOf(batch);
    const score = sum(pairs);
    if (batch && pairs && score !== null && score > 0n) {
      candidates.push({ item: batch, score, pairs });
      candidates.sort(byScore);
    }
  }
  const offered: typeof candidates = [];
  for (const candidate of candidates) {
    if (offered.length === MAX_SOLUTIONS) break;
    if (
      offered.every((o) => fairTogether(o.pairs, candidate.pairs) && settleTogether(o, candidate))
    )
      offered.push(candidate);
  }
  return offered.map(({ item }) => item);
}
