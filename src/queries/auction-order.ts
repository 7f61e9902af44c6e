/**
 * An order as an auction shows it (the reference's `AuctionOrder`): the order as placed, plus
 * what earlier batches had executed by the auction's cut. The cut builds these from the open
 * orders; `GET /api/v1/auction` rebuilds them from the orders an `AuctionClosed` names.
 */
import type { AuctionOrder } from '../domain/events.js';
import type { ApiOrder } from './order-view.js';

/** Executed so far in the order's own terms: sell atoms (sell orders) or buy atoms (buy orders). */
export function executedOf(order: ApiOrder): string {
  return order.kind === 'sell' ? order.executedSellAmountBeforeFees : order.executedBuyAmount;
}

export function auctionOrder(order: ApiOrder, executed: string): AuctionOrder {
  return {
    uid: order.uid,
    owner: order.owner,
    sellToken: order.sellToken,
    buyToken: order.buyToken,
    receiver: order.receiver,
    sellAmount: order.sellAmount,
    buyAmount: order.buyAmount,
    validTo: order.validTo,
    appData: order.appData,
    feeAmount: order.feeAmount,
    kind: order.kind,
    partiallyFillable: order.partiallyFillable,
    sellTokenBalance: order.sellTokenBalance,
    buyTokenBalance: order.buyTokenBalance,
    created: Math.floor(Date.parse(order.creationDate) / 1000),
    executed,
    preInteractions: order.interactions.pre,
    postInteractions: order.interactions.post,
    class: order.class,
    signingScheme: order.signingScheme,
    signature: order.signature,
    protocolFees: [],
  };
}
