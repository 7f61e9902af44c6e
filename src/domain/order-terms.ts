/**
 * An auction order in the terms the settlement contract executes it by: its signed amounts as
 * integers and what earlier batches filled of it. What solvers solve and the referee checks.
 */
import type { Address, AuctionOrder, OrderKind, OrderUid } from './events.js';

/**
 * Orders carry no signed fee: the order book refuses a non-zero one (`NonZeroFee`), so the
 * contract's executed fee is always 0.
 */
export interface OrderTerms {
  uid: OrderUid;
  owner: Address;
  sellToken: Address;
  buyToken: Address;
  sellAmount: bigint;
  /** The limit: at least this much for `sellAmount` (sell orders), at most `sellAmount` for it (buy orders). */
  buyAmount: bigint;
  kind: OrderKind;
  partiallyFillable: boolean;
  /** Filled in earlier batches, as the contract counts it: sell atoms of sell orders, buy atoms of buy orders. */
  executed: bigint;
}

export function orderTermsOf(
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
    | 'executed'
  >,
): OrderTerms {
  return {
    uid: order.uid,
    owner: order.owner,
    sellToken: order.sellToken,
    buyToken: order.buyToken,
    sellAmount: BigInt(order.sellAmount),
    buyAmount: BigInt(order.buyAmount),
    kind: order.kind,
    partiallyFillable: order.partiallyFillable,
    executed: BigInt(order.executed),
  };
}
