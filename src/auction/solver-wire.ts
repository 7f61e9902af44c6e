/**
 * The external solver wire format (DESIGN §7): the JSON body POSTed to a solver for one auction
 * round, and the answer it sends back. Pure functions, no I/O; src/auction/external-solver.ts
 * does the HTTP. Amounts are decimal strings, addresses lowercase 0x-hex.
 *
 * Request (`SolveRequest`): the auction as `GET /api/v1/auction` shows it, each order with what
 * earlier batches executed of both its amounts, the native price of every token, and the
 * Uniswap-V2 pools. Answer (`SolveResponse`): solutions, each with a uniform clearing price per
 * traded token, the trades (order uid, executed amount) and the calls the settlement makes
 * between the transfers in and out.
 */
import { MAX_UINT256 } from '../domain/amounts.js';
import { solverOrderOf } from '../domain/solver/solver-order.js';
import type { Pool } from '../domain/amm.js';
import type { Address, AuctionOrder, Hex, Interaction, OrderUid } from '../domain/events.js';
import type { ProposedSolution, SolutionTrade, SolverAuction } from '../domain/solver/types.js';
import {
  describeSchemaError,
  validators,
  type SolveResponseBody,
} from '../../schemas/validators.js';
import type { SolverRound } from './solver.js';

/** An auction order as solvers receive it: the API's `AuctionOrder` plus both executed amounts. */
export interface SolveRequestOrder extends AuctionOrder {
  /** Sell atoms taken from the owner in earlier batches, decimal. */
  executedSell: string;
  /** Buy atoms paid to the receiver in earlier batches, decimal. */
  executedBuy: string;
}

/** A Uniswap-V2 pair: `tokens[0] < tokens[1]` by address, reserves in that order. */
export interface ConstantProductLiquidity {
  kind: 'constantProduct';
  address: Address;
  tokens: [Address, Address];
  reserves: [string, string];
  /** The share of each input the pool keeps, a decimal fraction: always "0.003" here. */
  fee: string;
}

export interface SolveRequest {
  /** The auction id. */
  id: number;
  /** The network's API path segment, e.g. `mainnet`. */
  network: string;
  chainId: number;
  /** The block the auction was cut at (balances, prices, reserves). */
  block: number;
  /** ISO 8601 UTC: answers arriving later are not taken. */
  deadline: string;
  settlementContract: Address;
  wrappedNativeToken: Address;
  /** Native value of one token atom × 1e18, decimal. */
  tokens: Record<Address, { price: string }>;
  orders: SolveRequestOrder[];
  liquidity: ConstantProductLiquidity[];
}

/** One solution as the solver sends it (schemas/solver/solve-response.schema.json). */
export type SolveResponseSolution = SolveResponseBody['solutions'][number];
export type SolveResponse = SolveResponseBody;

/** The only pool kind the request carries, and its fee (Uniswap-V2's 0.3%). */
const CONSTANT_PRODUCT_FEE = '0.003';

/**
 * The request for `round`. Every auction order is sent with the executed amounts of the solver
 * order of the same uid; an order missing from `round.auction` breaks the round's invariant and
 * throws. Token prices are `round.prices`, completed by the solver auction's native prices.
 */
export function solveRequest(round: SolverRound): SolveRequest {
  const solverOrders = new Map(round.auction.orders.map((order) => [order.uid, order]));
  const orders = round.orders.map((order): SolveRequestOrder => {
    const solverOrder = solverOrders.get(order.uid);
    if (solverOrder === undefined)
      throw new Error(`auction ${round.auctionId}: order ${order.uid} has no solver order`);
    return {
      ...order,
      executedSell: solverOrder.executedSell.toString(),
      executedBuy: solverOrder.executedBuy.toString(),
    };
  });
  const tokens: Record<Address, { price: string }> = {};
  for (const [token, price] of Object.entries(round.prices)) tokens[token as Address] = { price };
  for (const [token, price] of round.auction.nativePrices)
    tokens[token] ??= { price: price.toString() };
  return {
    id: round.auctionId,
    network: round.network.name,
    chainId: round.network.chainId,
    block: round.block,
    deadline: round.deadline.toISOString(),
    settlementContract: round.network.settlementContract,
    wrappedNativeToken: round.network.wrappedNativeToken,
    tokens,
    orders,
    liquidity: round.auction.pools.map((pool) => ({
      kind: 'constantProduct',
      address: pool.address,
      tokens: [pool.token0, pool.token1],
      reserves: [pool.reserve0.toString(), pool.reserve1.toString()],
      fee: CONSTANT_PRODUCT_FEE,
    })),
  };
}

/**
 * The request back in the built-in solver's terms: what a solver written against this module
 * solves. It trusts `request` to be well formed (a solver should validate what it receives);
 * pools of another kind or fee than Uniswap-V2's are left out.
 */
export function solverAuctionOf(request: SolveRequest): SolverAuction {
  const orders = request.orders.map((order) =>
    solverOrderOf(order, { sell: order.executedSell, buy: order.executedBuy }),
  );
  const pools = request.liquidity
    .filter((l) => l.kind === 'constantProduct' && l.fee === CONSTANT_PRODUCT_FEE)
    .map((l): Pool => ({
      address: l.address,
      token0: l.tokens[0],
      token1: l.tokens[1],
      reserve0: BigInt(l.reserves[0]),
      reserve1: BigInt(l.reserves[1]),
    }));
  return {
    id: request.id,
    orders,
    nativePrices: new Map(
      Object.entries(request.tokens).map(([token, { price }]) => [token as Address, BigInt(price)]),
    ),
    pools,
    wrappedNative: request.wrappedNativeToken,
  };
}

/** A solution in the answer's format: the inverse of what `parseSolveResponse` reads. */
export function encodeSolution(
  solution: Pick<ProposedSolution, 'clearingPrices' | 'trades' | 'interactions'>,
): SolveResponseSolution {
  return {
    prices: Object.fromEntries(
      [...solution.clearingPrices].map(([token, price]) => [token, price.toString()]),
    ),
    trades: solution.trades.map((trade) => ({
      order: trade.uid,
      executedAmount: trade.executedAmount.toString(),
    })),
    interactions: solution.interactions.map(({ target, value, callData }) => ({
      target,
      value,
      callData,
    })),
  };
}

/** A decimal the schema let through, refused beyond 2^256 − 1 (`field` names it in the error). */
function uint256(decimal: string, field: string): bigint {
  const value = BigInt(decimal);
  if (value > MAX_UINT256) throw new Error(`${field} exceeds uint256`);
  return value;
}

const lower = <T extends Hex>(hex: string): T => hex.toLowerCase() as T;

/**
 * The solutions of a solver's answer, attributed to `solver`. Throws an Error naming the first
 * invalid field (a JSON pointer, e.g. `/solutions/0/trades/1/order must match pattern …`).
 * Only the format is checked here: whether the trades and prices make a sound settlement is the
 * competition's question. Unknown top-level fields are ignored; inside a solution they are not.
 */
export function parseSolveResponse(
  body: unknown,
  solver: { name: string; address: Address },
): ProposedSolution[] {
  const validate = validators.solveResponse;
  if (!validate(body)) throw new Error(describeSchemaError(validate));
  return body.solutions.map((solution, i): ProposedSolution => {
    const at = `/solutions/${i}`;
    const clearingPrices = new Map<Address, bigint>();
    for (const [token, price] of Object.entries(solution.prices)) {
      const address = lower<Address>(token);
      if (clearingPrices.has(address))
        throw new Error(`${at}/prices has ${address} more than once (in another case)`);
      clearingPrices.set(address, uint256(price, `${at}/prices/${token}`));
    }
    const trades = solution.trades.map((trade, j): SolutionTrade => ({
      uid: lower<OrderUid>(trade.order.startsWith('0x') ? trade.order : `0x${trade.order}`),
      executedAmount: uint256(trade.executedAmount, `${at}/trades/${j}/executedAmount`),
    }));
    const interactions = (solution.interactions ?? []).map((interaction, j): Interaction => ({
      target: lower<Address>(interaction.target),
      value: uint256(interaction.value, `${at}/interactions/${j}/value`).toString(),
      callData: lower<Hex>(interaction.callData),
    }));
    return {
      solver: solver.name,
      solverAddress: lower<Address>(solver.address),
      clearingPrices,
      trades,
      interactions,
    };
  });
}
