/**
 * The order aggregate: an order's state folded from the events of its stream, and the decision
 * on signed cancellations (reference §3, §4.3).
 *
 * Executed amounts are plain sums of the `TradeSettled` facts, never clamped: the settlement
 * contract already refuses to fill an order beyond its amounts, and a sum that hid an indexer
 * bug would be worse than one that shows it (status then stays `open`, as the reference's
 * exact-equality rule would too).
 */
import type {
  Address,
  ChainCoordinates,
  DomainEvent,
  OrderCancelledV1,
  OrderPlacedV1,
  OrderUid,
  TradeSettledV1,
} from './events.js';
import type { OrderRejection } from './errors.js';
import { orderStatus, type StatusInputs } from './status.js';

export interface OrderState {
  placed: OrderPlacedV1;
  sellAmount: bigint;
  buyAmount: bigint;
  executedSellAmount: bigint;
  executedBuyAmount: bigint;
  executedFeeAmount: bigint;
  trades: readonly TradeSettledV1[];
  /** The first cancellation, off-chain or on-chain; later ones change nothing about it. */
  cancellation: OrderCancelledV1 | null;
  cancelledBy: Address | null;
  /** Invalidated on chain (`invalidateOrder`), whichever cancellation came first. */
  invalidatedOnChain: boolean;
  /** The latest pre-signature by chain position; null when none was ever seen. */
  preSignature: boolean | null;
  preSignatureAt: ChainCoordinates | null;
}

function placedState(placed: OrderPlacedV1): OrderState {
  return {
    placed,
    sellAmount: BigInt(placed.order.sellAmount),
    buyAmount: BigInt(placed.order.buyAmount),
    executedSellAmount: 0n,
    executedBuyAmount: 0n,
    executedFeeAmount: 0n,
    trades: [],
    cancellation: null,
    cancelledBy: null,
    invalidatedOnChain: false,
    preSignature: null,
    preSignatureAt: null,
  };
}

/** Whether chain position `a` is at or after `b`; at a tie the later-recorded fact wins. */
function atOrAfter(a: ChainCoordinates, b: ChainCoordinates): boolean {
  return a.blockNumber !== b.blockNumber ? a.blockNumber > b.blockNumber : a.logIndex >= b.logIndex;
}

/**
 * Applies one event to a placed order. Before placement (`state` null) only `OrderPlaced`
 * creates a state; a repeated `OrderPlaced` is ignored, as the ledger's `noStream` placement
 * makes it impossible anyway.
 */
export function evolve(state: OrderState | null, event: DomainEvent): OrderState | null {
  if (state === null) return event.type === 'OrderPlaced' ? placedState(event.data) : null;
  switch (event.type) {
    case 'OrderPlaced':
    case 'AppDataRegistered':
      return state;
    case 'TradeSettled':
      return {
        ...state,
        executedSellAmount: state.executedSellAmount + BigInt(event.data.sellAmount),
        executedBuyAmount: state.executedBuyAmount + BigInt(event.data.buyAmount),
        executedFeeAmount: state.executedFeeAmount + BigInt(event.data.feeAmount),
        trades: [...state.trades, event.data],
      };
    case 'OrderCancelled': {
      const onChain = state.invalidatedOnChain || event.data.source === 'chain';
      if (state.cancellation !== null) return { ...state, invalidatedOnChain: onChain };
      return {
        ...state,
        cancellation: event.data,
        cancelledBy: event.data.by,
        invalidatedOnChain: onChain,
      };
    }
    case 'PreSignatureSet':
      if (state.preSignatureAt !== null && !atOrAfter(event.data.chain, state.preSignatureAt)) {
        return state;
      }
      return { ...state, preSignature: event.data.signed, preSignatureAt: event.data.chain };
  }
}

/**
 * The order's state from its stream, or null when it was never placed. Chain facts recorded
 * before the placement still count (a pre-signature can be set on chain before the order
 * reaches the API): every fact but the cancellation order commutes, so the fold starts from
 * the placement and then takes the other events in stream order.
 */
export function foldOrder(events: readonly DomainEvent[]): OrderState | null {
  const placement = events.find((e) => e.type === 'OrderPlaced');
  if (placement === undefined) return null;
  return events.reduce<OrderState | null>(
    (state, event) => (event === placement ? state : evolve(state, event)),
    evolve(null, placement),
  );
}

export function statusInputs(state: OrderState): StatusInputs {
  return {
    kind: state.placed.order.kind,
    sellAmount: state.sellAmount,
    buyAmount: state.buyAmount,
    validTo: state.placed.order.validTo,
    executedSellAmount: state.executedSellAmount,
    executedBuyAmount: state.executedBuyAmount,
    executedFeeAmount: state.executedFeeAmount,
    invalidated: state.cancellation !== null,
    presignaturePending: state.placed.signingScheme === 'presign' && state.preSignature !== true,
  };
}

export interface CancellationInput {
  /** The listed orders in request order; `state` null when the UID is unknown. */
  orders: readonly { uid: OrderUid; state: OrderState | null }[];
  /** The recovered signer, or null when recovery failed. */
  signer: Address | null;
  nowSeconds: number;
}

export type CancellationDecision =
  { ok: true; cancel: OrderUid[] } | { ok: false; error: OrderRejection };

const error = (errorType: OrderRejection['errorType'], description: string) =>
  ({ ok: false, error: { errorType, description } }) as const;

/** Why this order cannot be cancelled off-chain, if it cannot. */
function uncancellable(state: OrderState | null, nowSeconds: number): CancellationDecision | null {
  if (state === null) return error('OrderNotFound', 'Order not located in database');
  const ecdsa = state.placed.signingScheme === 'eip712' || state.placed.signingScheme === 'ethsign';
  switch (orderStatus(statusInputs(state), nowSeconds)) {
    case 'presignaturePending':
      return error('OnChainOrder', 'On-chain orders must be cancelled on-chain');
    case 'open':
      return ecdsa ? null : error('OnChainOrder', 'On-chain orders must be cancelled on-chain');
    case 'fulfilled':
      return error('OrderFullyExecuted', 'Order is fully executed');
    case 'cancelled':
      return error('AlreadyCancelled', 'Order is already cancelled');
    case 'expired':
      return error('OrderExpired', 'Order is expired');
  }
}

/**
 * All or nothing, checked in the reference's order: each order in turn must exist and be open
 * (first failure wins), then the signature must recover, then the signer must own every listed
 * order. Only then are they all cancelled.
 */
export function decideCancellation(request: CancellationInput): CancellationDecision {
  for (const { state } of request.orders) {
    const refusal = uncancellable(state, request.nowSeconds);
    if (refusal !== null) return refusal;
  }
  const { signer } = request;
  if (signer === null) return error('InvalidSignature', 'Malformed signature');
  if (request.orders.some(({ state }) => state?.placed.owner !== signer)) {
    return error('WrongOwner', "Signature recovery's owner doesn't match order's");
  }
  return { ok: true, cancel: [...new Set(request.orders.map(({ uid }) => uid))] };
}
