/** An auction's order in the solver's terms: amounts as integers, both earlier fills known. */
import type { AuctionOrder } from '../events.js';
import type { SolverOrder } from './types.js';

export function solverOrderOf(
  order: Pick<
    AuctionOrder,
    | 'uid'
    | 'owner'
    | 'sellToken'
    | 'buyToken'
    | 'sellAmount'
    | 'buyAmount'
    | 'kind'
    | 'partiallyFillable'
  >,
  executed: { sell: string; buy: string },
): SolverOrder {
  return {
    uid: order.uid,
    owner: order.owner,
    sellToken: order.sellToken,
    buyToken: order.buyToken,
    sellAmount: BigInt(order.sellAmount),
    buyAmount: BigInt(order.buyAmount),
    kind: order.kind,
    partiallyFillable: order.partiallyFillable,
    executedSell: BigInt(executed.sell),
    executedBuy: BigInt(executed.buy),
  };
}
