/**
 * The built-in solver as one solver among equals: it takes the published solver engine API's
 * `Auction` and answers with the API's solutions, in process. Inside, src/domain/solver solves
 * the auction's orders (what is left of each) over its `constantProduct` pools, with HiGHS
 * (`linear-programs.ts`) as the optimizer of its whole-auction settlement; its swaps become
 * `liquidity` interactions naming the pools they go through, and it takes no fee.
 */
import type { Pool } from '../domain/amm.js';
import { UNISWAP_V2_FEE } from '../domain/amm.js';
import type { Address } from '../domain/events.js';
import type { OrderTerms } from '../domain/order-terms.js';
import type { ProgramSolver } from '../domain/solver/linear-program.js';
import { solve } from '../domain/solver/solve.js';
import type { Solution as BuiltinSolution, SolveOptions } from '../domain/solver/types.js';
import type { Auction, Order, Solution } from './solver-api/types.js';
import { programSolver } from './linear-programs.js';
import type { Solver } from './solver.js';

export const BUILTIN_SOLVER_NAME = 'builtin';

/** Which built-in solver answers: the account it competes as, the network's hub, its slippage. */
export interface BuiltinSolverParams {
  address: Address;
  wrappedNative: Address;
  slippageBps: bigint;
}

/** The built-in solver `params` name. */
export function builtinSolverOf(params: BuiltinSolverParams): Solver {
  return createBuiltinSolver(params.address, params.wrappedNative, {
    slippageBps: params.slippageBps,
  });
}

/**
 * `address`: the account the built-in solver competes as (the driver's); `wrappedNative`: the
 * network's wrapped native token, the hub of its two-pool routes.
 */
export function createBuiltinSolver(
  address: Address,
  wrappedNative: Address,
  options: SolveOptions,
): Solver {
  let optimizer: Promise<ProgramSolver> | undefined;
  return {
    name: BUILTIN_SOLVER_NAME,
    address,
    quotes: true,
    // Synchronous inside: the round waits for it whatever the deadline (about 0.2 s for 1,000
    // orders; see BENCHMARKS.md).
    solve: async (auction) => {
      const orders = new Map(auction.orders.map((order) => [order.uid, order]));
      const pools = poolsOf(auction);
      // A quote is one order: its best route is the pair-by-pair solver's, no batch to optimise.
      const quote = auction.id === null;
      const solutions = solve(
        {
          id: auction.id === null ? 0 : Number(auction.id),
          orders: auction.orders.map(termsOf),
          nativePrices: nativePricesOf(auction),
          pools: pools.map(({ pool }) => pool),
          wrappedNative,
        },
        // A quote is never settled: it is priced on the pools exactly as they are.
        quote ? { ...options, slippageBps: 0n } : options,
        quote ? undefined : await (optimizer ??= programSolver()),
      );
      const ids = new Map(pools.map(({ id, pool }) => [pool.address, id]));
      return { solutions: solutions.map((solution, i) => answer(i, solution, orders, ids)) };
    },
    // It learns nothing from feedback: every auction is solved afresh.
    notify: () => undefined,
  };
}

/** An order as the built-in solver works on it: signed amounts, and what was filled before. */
function termsOf(order: Order): OrderTerms {
  const [sell, buy] = [BigInt(order.fullSellAmount), BigInt(order.fullBuyAmount)];
  const left = BigInt(order.kind === 'sell' ? order.sellAmount : order.buyAmount);
  return {
    uid: order.uid,
    owner: order.owner,
    sellToken: order.sellToken,
    buyToken: order.buyToken,
    sellAmount: sell,
    buyAmount: buy,
    kind: order.kind,
    partiallyFillable: order.partiallyFillable,
    executed: (order.kind === 'sell' ? sell : buy) - left,
  };
}

function nativePricesOf(auction: Auction): Map<Address, bigint> {
  const prices = new Map<Address, bigint>();
  for (const [token, info] of Object.entries(auction.tokens)) {
    if (info.referencePrice !== undefined)
      prices.set(token as Address, BigInt(info.referencePrice));
  }
  return prices;
}

/** The Uniswap-V2 pairs among the liquidity (two tokens, its fee), with their ids. */
function poolsOf(auction: Auction): { id: string; pool: Pool }[] {
  return auction.liquidity.flatMap((liquidity) => {
    const tokens = Object.entries(liquidity.tokens) as [Address, { balance: string }][];
    if (liquidity.kind !== 'constantProduct' || liquidity.fee !== UNISWAP_V2_FEE) return [];
    if (tokens.length !== 2) return [];
    const [[a, reserveA], [b, reserveB]] = tokens as [
      [Address, { balance: string }],
      [Address, { balance: string }],
    ];
    const [first, second] = a < b ? [a, b] : [b, a];
    const reserves = new Map([
      [a, BigInt(reserveA.balance)],
      [b, BigInt(reserveB.balance)],
    ]);
    return [
      {
        id: liquidity.id,
        pool: {
          address: liquidity.address,
          token0: first,
          token1: second,
          reserve0: reserves.get(first)!,
          reserve1: reserves.get(second)!,
        },
      },
    ];
  });
}

function answer(
  id: number,
  solution: BuiltinSolution,
  orders: ReadonlyMap<string, Order>,
  liquidityIds: ReadonlyMap<Address, string>,
): Solution {
  return {
    id,
    prices: solution.clearingPrices,
    trades: solution.trades.map((trade) => ({
      kind: 'fulfillment',
      order: trade.uid,
      executedAmount: trade.executedAmount,
      // A limit order's trade states its fee: none taken.
      fee: orders.get(trade.uid)!.class === 'limit' ? 0n : null,
    })),
    preInteractions: [],
    interactions: solution.swaps.map((swap) => ({
      kind: 'liquidity',
      id: liquidityIds.get(swap.pool)!,
      inputToken: swap.tokenIn,
      outputToken: swap.tokenOut,
      inputAmount: swap.amountIn,
      outputAmount: swap.amountOut,
    })),
    postInteractions: [],
    gas: solution.gas,
    unsupported: [],
  };
}
