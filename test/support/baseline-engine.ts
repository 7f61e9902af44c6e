/**
 * A solver engine answering as cowprotocol/services' baseline engine does with its example
 * configuration (`max-hops = 0`, `max-partial-attempts = 5`), the shapes of its published test
 * cases (`crates/solvers/src/tests/cases`: direct_swap, buy_order_rounding, partial_fill,
 * limit_order_quoting): one solution per order it can route through a pool of the auction,
 * numbered by the order's place; the pool used by a `liquidity` interaction; for a limit order a
 * fee covering the solution's gas at the auction's gas price, in the sell token; a partially
 * fillable order tried at 1/1, 1/2, 1/4… of what is left until its limit holds. Written out
 * again from those cases, as a test double: none of the engine's code.
 */
import type { Auction, Order } from '../../src/auction/solver-api/types.js';
import { amountIn, amountOut } from '../../src/domain/amm.js';
import type { Address } from '../../src/domain/events.js';

/** The baseline's fixed settlement overhead and its cost of one Uniswap-V2 hop. */
const SOLUTION_GAS_OFFSET = 106_391n;
const UNISWAP_V2_HOP_GAS = 60_000n;
const PARTIAL_ATTEMPTS = 5;
const E18 = 10n ** 18n;

export function baselineAnswer(auction: Auction): unknown {
  const solutions = auction.orders.flatMap((order, id) => {
    const solution = solve(auction, order);
    return solution === null ? [] : [{ id, ...solution }];
  });
  return { solutions };
}

function solve(auction: Auction, order: Order) {
  const found = auction.liquidity.findIndex(
    (pool) =>
      pool.tokens[order.sellToken] !== undefined && pool.tokens[order.buyToken] !== undefined,
  );
  if (found < 0) return null;
  const pool = auction.liquidity[found]!;
  const [reserveIn, reserveOut] = [
    BigInt(pool.tokens[order.sellToken]!.balance),
    BigInt(pool.tokens[order.buyToken]!.balance),
  ];
  const gas = SOLUTION_GAS_OFFSET + UNISWAP_V2_HOP_GAS;
  const price = auction.tokens[order.sellToken]?.referencePrice;
  const fee =
    order.class === 'limit' && price !== undefined
      ? (gas * BigInt(auction.effectiveGasPrice) * E18) / BigInt(price)
      : 0n;
  const attempts = order.partiallyFillable ? PARTIAL_ATTEMPTS : 1;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const part = 1n << BigInt(attempt);
    const swap =
      order.kind === 'sell'
        ? sellThrough(order, part, fee, reserveIn, reserveOut)
        : buyThrough(order, part, fee, reserveIn, reserveOut);
    if (swap === null) continue;
    const { sell, buy, input, output } = swap;
    // The order's limit, on its signed amounts.
    if (BigInt(order.fullSellAmount) * buy < BigInt(order.fullBuyAmount) * sell) continue;
    return {
      prices: { [order.sellToken]: String(buy), [order.buyToken]: String(sell - fee) },
      trades: [
        {
          kind: 'fulfillment',
          order: order.uid,
          executedAmount: String(order.kind === 'sell' ? sell - fee : buy),
          ...(order.class === 'limit' ? { fee: String(fee) } : {}),
        },
      ],
      preInteractions: [],
      interactions: [
        {
          kind: 'liquidity',
          internalize: false,
          id: pool.id,
          inputToken: order.sellToken as Address,
          outputToken: order.buyToken as Address,
          inputAmount: String(input),
          outputAmount: String(output),
        },
      ],
      postInteractions: [],
      gas: Number(gas),
    };
  }
  return null;
}

/** `1/part` of what is left sold through the pool, the fee on top as far as the order allows. */
function sellThrough(
  order: Order,
  part: bigint,
  fee: bigint,
  reserveIn: bigint,
  reserveOut: bigint,
) {
  const left = BigInt(order.sellAmount);
  const input = left / part;
  const output = amountOut(input, reserveIn, reserveOut);
  if (input === 0n || output === null || output === 0n) return null;
  const sell = input + fee < left ? input + fee : left;
  if (sell <= fee) return null;
  return { sell, buy: ((sell - fee) * output) / input, input, output };
}

/** `1/part` of what is left bought through the pool: what it takes in, and the fee on top. */
function buyThrough(
  order: Order,
  part: bigint,
  fee: bigint,
  reserveIn: bigint,
  reserveOut: bigint,
) {
  const buy = BigInt(order.buyAmount) / part;
  const input = buy === 0n ? null : amountIn(buy, reserveIn, reserveOut);
  if (input === null) return null;
  // The pool gives a little more than asked for what it takes: the rest stays in the contract.
  const output = amountOut(input, reserveIn, reserveOut)!;
  return { sell: input + fee, buy, input, output };
}
