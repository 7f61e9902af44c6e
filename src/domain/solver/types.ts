/**
 * What the built-in solver reads (an auction cut for it) and what it proposes (solutions a
 * settlement driver turns into one GPv2Settlement `settle()` call each).
 */
import type { Pool } from '../amm.js';
import type { Address, Interaction, OrderKind, OrderUid } from '../events.js';

/**
 * An order as the solver needs it. Orders carry no fee: the order book refuses a non-zero
 * signed fee (`NonZeroFee`), so the contract's executed fee is always 0.
 */
export interface SolverOrder {
  uid: OrderUid;
  owner: Address;
  sellToken: Address;
  buyToken: Address;
  sellAmount: bigint;
  /** The limit: at least this much for `sellAmount` (sell orders), at most `sellAmount` for it (buy orders). */
  buyAmount: bigint;
  kind: OrderKind;
  partiallyFillable: boolean;
  /** Filled in earlier batches. The contract counts sell orders in sell atoms, buy orders in buy atoms. */
  executedSell: bigint;
  executedBuy: bigint;
}

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
  orders: readonly SolverOrder[];
  /** Native value of one token atom × 1e18 (1e18: one atom is worth one native atom). */
  nativePrices: ReadonlyMap<Address, bigint>;
  pools: readonly Pool[];
  /** The hub token of two-pool routes. */
  wrappedNative: Address;
}

export interface SolutionTrade {
  uid: OrderUid;
  /** Sell atoms for sell orders, buy atoms for buy orders; the full amount for fill-or-kill ones. */
  executedAmount: bigint;
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
  trades: readonly SolutionTrade[];
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

/**
 * A solution as it enters the competition, from any solver: the built-in one (its swaps already
 * encoded as calls) or an external one over HTTP. Only prices and trades decide its score; the
 * interactions are what the settlement runs between the transfers in and out.
 */
export interface ProposedSolution {
  /** The solver's configured name ("builtin" for the one in process). */
  solver: string;
  solverAddress: Address;
  clearingPrices: ReadonlyMap<Address, bigint>;
  trades: readonly SolutionTrade[];
  interactions: readonly Interaction[];
}
