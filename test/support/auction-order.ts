/** A signed test order as an auction carries it (`AuctionOrder`), for tests that append auctions. */
import type { Address, AuctionOrder, Hex } from '../../src/domain/events.js';
import type { SignedOrder } from './signing.js';

export function auctionOrderOf(signed: SignedOrder): AuctionOrder {
  const { order } = signed;
  return {
    sellToken: order.sellToken.toLowerCase() as Address,
    buyToken: order.buyToken.toLowerCase() as Address,
    receiver: null,
    sellAmount: order.sellAmount,
    buyAmount: order.buyAmount,
    validTo: order.validTo,
    appData: signed.appDataHash,
    feeAmount: order.feeAmount,
    kind: order.kind,
    partiallyFillable: order.partiallyFillable,
    sellTokenBalance: order.sellTokenBalance,
    buyTokenBalance: order.buyTokenBalance,
    uid: signed.uid,
    owner: signed.owner,
    created: Math.floor(Date.now() / 1000),
    executed: '0',
    preInteractions: [],
    postInteractions: [],
    class: 'limit',
    signingScheme: 'eip712',
    signature: signed.body.signature as Hex,
    protocolFees: [],
  };
}
