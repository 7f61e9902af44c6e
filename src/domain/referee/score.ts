/**
 * How solutions are scored (CIP-38) and what the fairness filter compares (reference §6, steps 3
 * and 4): shared by the built-in solver, which only offers solutions that pass them together,
 * and by the competition, which ranks every solver's solutions with them.
 */
import type { Address, OrderUid } from '../events.js';
import type { OrderTerms } from '../order-terms.js';
import { nativeSurplus, tradeAmounts, type ExecutedTrade } from '../trade-execution.js';
import type { RefereeAuction } from './proposed-solution.js';

/**
 * What decides a solution's score: its clearing prices and trades, each with the fee its solver
 * takes (none stated: none taken), not how it settles them.
 */
export interface PricedTrades {
  clearingPrices: ReadonlyMap<Address, bigint>;
  trades: readonly (ExecutedTrade & { fee?: bigint })[];
}

/** A directed token pair as the fairness filter keys it: `sellToken/buyToken`. */
export const directedPair = (order: OrderTerms): string => `${order.sellToken}/${order.buyToken}`;

/**
 * CIP-38 score: each trade's surplus over its limit price, in native atoms, plus the protocol
 * fees (none: the auction attaches no fee policy to these orders). A solver's fee is paid by the
 * trader, so it lowers the surplus one for one. Null when a trade would revert or cannot be
 * valued (no native price): the reference drops such a solution. Whether the settlement
 * balances is `checkSolution`'s question, not this one's.
 */
export function score(
  solution: PricedTrades,
  auction: Pick<RefereeAuction, 'orders' | 'nativePrices'>,
): bigint | null {
  const orders = new Map(auction.orders.map((order) => [order.uid, order]));
  return sum(directedScores(solution, orders, auction.nativePrices));
}

/** The score per directed token pair (`directedPair`), as the fairness filter splits it; null as `score`. */
export function directedScores(
  solution: PricedTrades,
  orders: ReadonlyMap<OrderUid, OrderTerms>,
  nativePrices: ReadonlyMap<Address, bigint>,
): Map<string, bigint> | null {
  const scores = new Map<string, bigint>();
  for (const trade of solution.trades) {
    const order = orders.get(trade.uid);
    if (order === undefined) return null;
    const executed = tradeAmounts(
      order,
      { ...trade, fee: trade.fee ?? 0n },
      solution.clearingPrices,
    );
    const value =
      typeof executed === 'string' ? null : nativeSurplus(order, executed, nativePrices);
    if (value === null) return null;
    const pair = directedPair(order);
    scores.set(pair, (scores.get(pair) ?? 0n) + value);
  }
  return scores;
}

/** The total of `directedScores`. */
export function sum(scores: ReadonlyMap<string, bigint> | null): bigint | null {
  return scores && [...scores.values()].reduce((a, b) => a + b, 0n);
}

/**
 * The fairness filter's test (reference §6 step 4): `single`, trading one directed pair alone,
 * scores more on that pair than `many`, trading several pairs, does on it. The filter's
 * baseline of a pair is the best single-pair score, so a several-pair solution falls below a
 * baseline exactly when some single-pair solution undercuts it.
 */
export function undercuts(
  single: ReadonlyMap<string, bigint>,
  many: ReadonlyMap<string, bigint>,
): boolean {
  return (
    single.size === 1 &&
    many.size > 1 &&
    [...single].every(([pair, value]) => many.has(pair) && value > many.get(pair)!)
  );
}
