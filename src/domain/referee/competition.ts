/**
 * The competition of one auction (reference §6, "Competition" steps 2–7): every solver's
 * proposed solutions checked as the settlement contract would execute them, scored (CIP-38),
 * put through the fairness filter, the winners chosen among those whose token pairs do not
 * overlap, each winning solver given its reference score (CIP-67), and all of them ranked.
 * Pure and deterministic: ties keep the input order, so a caller wanting random tie-breaks
 * shuffles the solutions first, as the reference does.
 */
import type { Address, OrderUid, RankedSolution, SolutionOrder } from '../events.js';
import { NATIVE_TOKEN_MARKER } from '../networks.js';
import type { OrderTerms } from '../order-terms.js';
import { tradeAmounts, type Executed } from '../trade-execution.js';
import type { ProposedSolution, RefereeAuction } from './proposed-solution.js';
import { directedScores, sum, undercuts } from './score.js';

export interface CompetitionOptions {
  /** Solutions taken per solver (by name), the first ones it proposed. Reference: 3. */
  maxSolutionsPerSolver: number;
  /** Winners per auction at most. Reference: 20 (`max_winners_per_auction`). */
  maxWinners: number;
}

/** Solutions the reference's autopilot takes per solver (reference §6, competition step 2). */
export const MAX_SOLUTIONS_PER_SOLVER = 3;

export const DEFAULT_COMPETITION: CompetitionOptions = {
  maxSolutionsPerSolver: MAX_SOLUTIONS_PER_SOLVER,
  maxWinners: 20,
};

/** A solution that passed the checks, with what the competition needs of it. */
interface Entry {
  /** Position among the solutions taken: ties in score go to the earlier one. */
  index: number;
  proposed: ProposedSolution;
  score: bigint;
  /** Score per directed pair `sell/buy`, as the fairness filter compares them. */
  pairs: Map<string, bigint>;
  /** Directed pairs with the native-token marker counted as the wrapped native token. */
  swapped: Set<string>;
  /** What each trade moves, and the fee its solver takes, in the order of `proposed.trades`. */
  executed: { order: OrderTerms; amounts: Executed; fee: bigint }[];
}

/** Step 2: at most `max` solutions per solver name, the first ones in input order. */
function capPerSolver(proposed: readonly ProposedSolution[], max: number): ProposedSolution[] {
  const counts = new Map<string, number>();
  return proposed.filter((solution) => {
    const count = (counts.get(solution.solver) ?? 0) + 1;
    counts.set(solution.solver, count);
    return count <= max;
  });
}

/**
 * Steps 2–3: the solution scored, or null when it is dropped: no trades, an order not in the
 * auction or traded twice, an amount or price the contract would refuse, or a score that cannot
 * be computed (a surplus token without a native price). A zero score is kept.
 */
function evaluate(
  proposed: ProposedSolution,
  index: number,
  orders: ReadonlyMap<OrderUid, OrderTerms>,
  auction: RefereeAuction,
): Entry | null {
  if (proposed.trades.length === 0) return null;
  const executed: Entry['executed'] = [];
  for (const trade of proposed.trades) {
    const order = orders.get(trade.uid);
    if (order === undefined || executed.some((e) => e.order === order)) return null;
    const amounts = tradeAmounts(order, trade, proposed.clearingPrices);
    if (typeof amounts === 'string') return null;
    executed.push({ order, amounts, fee: trade.fee });
  }
  const pairs = directedScores(proposed, orders, auction.nativePrices);
  const score = sum(pairs);
  if (pairs === null || score === null) return null;
  const asErc20 = (token: Address) =>
    token === NATIVE_TOKEN_MARKER ? auction.wrappedNative : token;
  const swapped = new Set(
    executed.map(({ order }) => `${asErc20(order.sellToken)}/${asErc20(order.buyToken)}`),
  );
  return { index, proposed, score, pairs, swapped, executed };
}

/** Best score first; equal scores in input order. */
const byScore = (p: Entry, q: Entry) =>
  p.score === q.score ? p.index - q.index : p.score > q.score ? -1 : 1;

/**
 * Steps 4–5: the solutions the fairness filter takes out (some pair of theirs scores below the
 * best single-pair solution of that pair), and the winners: by score, each one whose pairs no
 * earlier winner swapped, up to `maxWinners`.
 */
function select(entries: readonly Entry[], maxWinners: number) {
  const filtered = new Set(
    entries.filter((many) => entries.some((single) => undercuts(single.pairs, many.pairs))),
  );
  const taken = new Set<string>();
  const winners: Entry[] = [];
  for (const entry of [...entries].sort(byScore)) {
    if (winners.length >= maxWinners) break;
    if (filtered.has(entry) || [...entry.swapped].some((pair) => taken.has(pair))) continue;
    winners.push(entry);
    for (const pair of entry.swapped) taken.add(pair);
  }
  return { filtered, winners };
}

const total = (entries: readonly Entry[]) => entries.reduce((a, e) => a + e.score, 0n);

function output(
  entry: Entry,
  rank: number,
  isWinner: boolean,
  filteredOut: boolean,
  referenceScore: bigint | null,
): RankedSolution {
  const { proposed } = entry;
  const orders = entry.executed.map(({ order, amounts, fee }): SolutionOrder => ({
    uid: order.uid,
    sellToken: order.sellToken,
    buyToken: order.buyToken,
    // What the contract counts the fill in: a sell order's sold atoms with the fee.
    executedAmount: (order.kind === 'sell' ? amounts.sell : amounts.buy).toString(),
    sellAmount: amounts.sell.toString(),
    buyAmount: amounts.buy.toString(),
    fee: fee.toString(),
  }));
  return {
    solver: proposed.solver,
    solverAddress: proposed.solverAddress,
    solutionId: proposed.solutionId,
    score: entry.score.toString(),
    rank,
    isWinner,
    filteredOut,
    referenceScore: referenceScore?.toString() ?? null,
    clearingPrices: Object.fromEntries(
      [...proposed.clearingPrices].map(([token, price]) => [token, price.toString()]),
    ),
    orders,
    preInteractions: [...proposed.calls.pre],
    interactions: [...proposed.calls.intra],
    postInteractions: [...proposed.calls.post],
  };
}

/**
 * Runs the competition of `auction` over the solutions proposed for it and returns every
 * solution kept, best rank first. Dropped ones (beyond a solver's allowance, or invalid, see
 * `evaluate`) do not appear. Ranks: the winners in the order chosen, then the other solutions
 * by score, then the ones the fairness filter took out, by score. Every winning solution carries
 * its solver's reference score: the winners' total score when that solver's solutions are
 * removed, the fairness filter and the selection run again without them.
 */
export function runCompetition(
  auction: RefereeAuction,
  proposed: readonly ProposedSolution[],
  options: CompetitionOptions = DEFAULT_COMPETITION,
): RankedSolution[] {
  return rankProposals(auction, proposed, options).map(({ solution }) => solution);
}

/** A solution as the competition ranked it, and the proposal it came from. */
export interface RankedProposal {
  solution: RankedSolution;
  proposed: ProposedSolution;
}

/** `runCompetition`, each ranked solution beside its proposal: a caller may drop that one and rank again. */
export function rankProposals(
  auction: RefereeAuction,
  proposed: readonly ProposedSolution[],
  options: CompetitionOptions = DEFAULT_COMPETITION,
): RankedProposal[] {
  const orders = new Map(auction.orders.map((order) => [order.uid, order]));
  const entries = capPerSolver(proposed, options.maxSolutionsPerSolver).flatMap(
    (solution, index) => evaluate(solution, index, orders, auction) ?? [],
  );
  const { filtered, winners } = select(entries, options.maxWinners);

  const referenceScores = new Map<string, bigint>();
  for (const { proposed: winner } of winners) {
    if (referenceScores.has(winner.solver)) continue;
    const others = entries.filter((entry) => entry.proposed.solver !== winner.solver);
    referenceScores.set(winner.solver, total(select(others, options.maxWinners).winners));
  }

  const won = new Set(winners);
  const rest = entries.filter((entry) => !won.has(entry) && !filtered.has(entry)).sort(byScore);
  const unfair = [...filtered].sort(byScore);
  return [...winners, ...rest, ...unfair].map((entry, i) => ({
    solution: output(
      entry,
      i + 1,
      won.has(entry),
      filtered.has(entry),
      won.has(entry) ? referenceScores.get(entry.proposed.solver)! : null,
    ),
    proposed: entry.proposed,
  }));
}
