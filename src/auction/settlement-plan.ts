/**
 * A winning solution as the settlement contract takes it: its clearing prices, one trade per
 * executed order (the order as signed, from the auction), and its interactions, with the orders'
 * own hooks around them: pre-hooks on an order's first fill only (reference §1.2: an order's
 * `preInteractions` are emptied once it is partially executed), post-hooks on every fill.
 */
import type { Address, AuctionOrder, RankedSolution } from '../domain/events.js';
import type { SettlementPlan } from '../chain/settlement-call.js';
import { onlyThroughTrampoline } from '../domain/hook-interactions.js';

/**
 * `auctionOrders`: the auction's orders in full, as its cut took them in. An order whose
 * interactions call anything but `hooksTrampoline` is refused (the cut filters those out
 * already): its raw hooks would run as the settlement contract.
 */
export function settlementPlan(
  auctionOrders: readonly AuctionOrder[],
  solution: RankedSolution,
  hooksTrampoline: Address,
): SettlementPlan {
  const orders = new Map(auctionOrders.map((order) => [order.uid, order]));
  const traded = solution.orders.map((trade) => {
    const order = orders.get(trade.uid);
    // The competition only ranks solutions trading the auction's orders.
    if (!order)
      throw new Error(`solution ${solution.rank} trades ${trade.uid}, not in the auction`);
    if (!onlyThroughTrampoline(hooksTrampoline, order.preInteractions, order.postInteractions))
      throw new Error(`order ${trade.uid} has interactions not through ${hooksTrampoline}`);
    return { order, executedAmount: BigInt(trade.executedAmount) };
  });
  const tokens = Object.keys(solution.clearingPrices) as Address[];
  return {
    tokens,
    clearingPrices: tokens.map((token) => BigInt(solution.clearingPrices[token]!)),
    trades: traded.map(({ order, executedAmount }) => ({
      order: orderData(order),
      owner: order.owner,
      signingScheme: order.signingScheme,
      signature: order.signature,
      executedAmount,
    })),
    interactions: {
      pre: traded.flatMap(({ order }) =>
        BigInt(order.executed) === 0n ? order.preInteractions : [],
      ),
      intra: solution.interactions,
      post: traded.flatMap(({ order }) => order.postInteractions),
    },
  };
}

function orderData(order: AuctionOrder) {
  const { sellToken, buyToken, receiver, sellAmount, buyAmount, validTo, appData, feeAmount } =
    order;
  const { kind, partiallyFillable, sellTokenBalance, buyTokenBalance } = order;
  return {
    sellToken,
    buyToken,
    receiver,
    sellAmount,
    buyAmount,
    validTo,
    appData,
    feeAmount,
    kind,
    partiallyFillable,
    sellTokenBalance,
    buyTokenBalance,
  };
}
