/**
 * A winning solution as the settlement contract takes it, as the reference driver encodes one:
 * the uniform clearing prices (sorted by token), then for each trade a pair of prices of its own
 * under which exactly its recorded amounts move (its sell token priced at what it receives, its
 * buy token at what it pays, the solver's fee included), the trade pointing at that pair. Each
 * trade is the order as signed, from the auction. The solution's calls run around the orders'
 * own hooks: its pre-interactions, then the pre-hooks of orders filled for the first time
 * (reference §1.2: an order's `preInteractions` are emptied once it is partially executed); its
 * interactions between the transfers; its post-interactions, then every order's post-hooks.
 */
import type { Address, AuctionOrder, Hex, RankedSolution } from '../domain/events.js';
import { encodeSettle, type SettlementPlan } from '../chain/settlement-call.js';
import { onlyThroughTrampoline, type InteractionTargets } from '../domain/hook-interactions.js';

/**
 * `auctionOrders`: the auction's orders in full, as its cut took them in. An order whose
 * interactions call anything but the network's trampoline (or its eth-flow `wrapAll`) is refused (the cut filters those out
 * already): its raw hooks would run as the settlement contract.
 */
export function settlementPlan(
  auctionOrders: readonly AuctionOrder[],
  solution: RankedSolution,
  targets: InteractionTargets,
): SettlementPlan {
  const orders = new Map(auctionOrders.map((order) => [order.uid, order]));
  const traded = solution.orders.map((trade) => {
    const order = orders.get(trade.uid);
    // The competition only ranks solutions trading the auction's orders.
    if (!order)
      throw new Error(`solution ${solution.rank} trades ${trade.uid}, not in the auction`);
    if (!onlyThroughTrampoline(targets, order.preInteractions, order.postInteractions))
      throw new Error(`order ${trade.uid} has interactions not through ${targets.hooksTrampoline}`);
    return { order, trade };
  });
  const uniform = (Object.keys(solution.clearingPrices) as Address[]).sort();
  const tokens = [...uniform, ...traded.flatMap(({ order }) => [order.sellToken, order.buyToken])];
  const clearingPrices = [
    ...uniform.map((token) => BigInt(solution.clearingPrices[token]!)),
    ...traded.flatMap(({ trade }) => [BigInt(trade.buyAmount), BigInt(trade.sellAmount)]),
  ];
  return {
    tokens,
    clearingPrices,
    trades: traded.map(({ order, trade }, i) => ({
      order: orderData(order),
      sellTokenIndex: uniform.length + 2 * i,
      buyTokenIndex: uniform.length + 2 * i + 1,
      owner: order.owner,
      signingScheme: order.signingScheme,
      signature: order.signature,
      executedAmount: BigInt(trade.executedAmount),
    })),
    interactions: {
      pre: [
        ...solution.preInteractions,
        ...traded.flatMap(({ order }) =>
          BigInt(order.executed) === 0n ? order.preInteractions : [],
        ),
      ],
      intra: solution.interactions,
      post: [
        ...solution.postInteractions,
        ...traded.flatMap(({ order }) => order.postInteractions),
      ],
    },
  };
}

/** Bytes the auction id takes at the end of the calldata. */
const AUCTION_ID_BYTES = 8;

/**
 * The `settle` calldata of the plan, followed by the auction's id in 8 bytes, as the reference
 * driver appends it (the contract ignores trailing bytes; indexers and explorers read them).
 */
export function settlementCalldata(plan: SettlementPlan, auctionId: number): Hex {
  const id = BigInt(auctionId)
    .toString(16)
    .padStart(2 * AUCTION_ID_BYTES, '0');
  return `${encodeSettle(plan)}${id}` as Hex;
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
