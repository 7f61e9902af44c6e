/**
 * What the built-in solver reads (an auction cut for it) and what it proposes (solutions a
 * settlement driver turns into one GPv2Settlement `settle()` call each).
 */
import type { Pool } from '../amm.js';
import type { Address } from '../events.js';
import type { OrderTerms } from '../order-terms.js';
import type { ExecutedTrade } from '../trade-execution.js';

/** How the built-in solver sizes its swaps. */
export interface SolveOptions {
  /**
   * How far, in basis points, a pool may move against a route between the reserves read and the
   * settlement before its swap no longer goes through (see `hopThrough`): the solution asks
   * that much less of each pool, and the trades pay out what it asks.
   */
  slippageBps: bigint;
}

export interface SolverAuction {
  id: number;
  orders: readonly OrderTerms[];
  /** Native value of one token atom × 1e18 (1e18: one atom is worth one native atom). */
  nativePrices: ReadonlyMap<Address, bigint>;
  pools: readonly Pool[];
  /** The hub token of two-pool routes. */
  wrappedNative: Address;
}

/** One Uniswap-V2 swap the settlement makes: `amountIn` sent to the pair, `amountOut` asked of it. */
export interface Swap {
  pool: Address;
  tokenIn: Address;
  tokenOut: Address;
  amountIn: bigint;
  amountOut: bigint;
}

export interface Solution {
  /** One price per traded token: every trade executes at `prices[sell] / prices[buy]`. */
  clearingPrices: ReadonlyMap<Address, bigint>;
  trades: readonly ExecutedTrade[];
  /** In execution order: a two-pool route's first swap comes before its second. */
  swaps: readonly Swap[];
  gas: bigint;
}

/**
 * A solution for one pair of priced tokens that can be worked out again at other prices of those
 * two tokens: how a batch of several pairs takes it in when one of its tokens already has a price
 * there. `reprice` answers null where no sound solution exists at those prices.
 */
export interface Proposal {
  solution: Solution;
  reprice(prices: ReadonlyMap<Address, bigint>): Solution | null;
}
