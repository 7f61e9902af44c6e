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
  ChainFact,
  DomainEvent,
  OrderCancelledV1,
  OrderPlacedV1,
  OrderUid,
  PreSignatureSetV1,
  TradeSettledV1,
} from './events.js';
import type { OrderRejection } from './errors.js';
import { ethFlowPlacement } from './eth-flow.js';
import { orderStatus, type StatusInputs } from './status.js';

export interface OrderState {
  placed: OrderPlacedV1;
  sellAmount: bigint;
  buyAmount: bigint;
  executedSellAmount: bigint;
  executedBuyAmount: bigint;
  executedFeeAmount: bigint;
  /** The trades still on the canonical chain. */
  trades: readonly TradeSettledV1[];
  /** The first signed (API) cancellation; later ones change nothing about it. */
  cancellation: OrderCancelledV1 | null;
  /** `invalidateOrder` calls still on the canonical chain: irreversible but for a reorg. */
  invalidations: readonly OrderCancelledV1[];
  /** The pre-signature logs still on the canonical chain; the latest by position counts. */
  preSignatures: readonly PreSignatureSetV1[];
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
    invalidations: [],
    preSignatures: [],
  };
}

/** Whether two facts come from the same log: a log is its block hash and index. */
export function sameLog(a: ChainCoordinates, b: ChainCoordinates): boolean {
  return a.blockHash === b.blockHash && a.logIndex === b.logIndex;
}

/** Whether chain position `a` is after `b`. */
function after(a: ChainCoordinates, b: ChainCoordinates): boolean {
  return a.blockNumber !== b.blockNumber ? a.blockNumber > b.blockNumber : a.logIndex > b.logIndex;
}

/** The latest pre-signature by chain position; null when none is on the canonical chain. */
export function latestPreSignature(state: OrderState): boolean | null {
  let latest: PreSignatureSetV1 | null = null;
  for (const p of state.preSignatures) if (!latest || after(p.chain, latest.chain)) latest = p;
  return latest?.signed ?? null;
}

function addTrade(state: OrderState, trade: TradeSettledV1, sign: 1n | -1n): OrderState {
  return {
    ...state,
    executedSellAmount: state.executedSellAmount + sign * BigInt(trade.sellAmount),
    executedBuyAmount: state.executedBuyAmount + sign * BigInt(trade.buyAmount),
    executedFeeAmount: state.executedFeeAmount + sign * BigInt(trade.feeAmount),
  };
}

/** Undoes a fact a reorg took off the canonical chain (a no-op if it was never applied). */
function revert(state: OrderState, fact: ChainFact): OrderState {
  const at = fact.data.chain;
  switch (fact.type) {
    case 'TradeSettled': {
      const trades = state.trades.filter((t) => !sameLog(t.chain, at));
      if (trades.length === state.trades.length) return state;
      return { ...addTrade(state, fact.data, -1n), trades };
    }
    case 'OrderCancelled':
      return {
        ...state,
        invalidations: state.invalidations.filter((c) => !c.chain || !sameLog(c.chain, at)),
      };
    case 'PreSignatureSet':
      return { ...state, preSignatures: state.preSignatures.filter((p) => !sameLog(p.chain, at)) };
    case 'SettlementObserved':
    case 'EthFlowOrderPlaced':
    case 'EthFlowOrderRefunded':
      return state;
  }
}

/**
 * Applies one event to a placed order. Before placement (`state` null) only `OrderPlaced`
 * creates a state; a repeated `OrderPlaced` is ignored, as the ledger's `noStream` placement
 * makes it impossible anyway.
 */
export function evolve(state: OrderState | null, event: DomainEvent): OrderState | null {
  if (state === null) {
    if (event.type === 'OrderPlaced') return placedState(event.data);
    return event.type === 'EthFlowOrderPlaced' ? placedState(ethFlowPlacement(event.data)) : null;
  }
  switch (event.type) {
    case 'OrderPlaced':
    case 'EthFlowOrderPlaced':
    case 'EthFlowOrderRefunded':
    case 'AppDataRegistered':
    case 'SettlementObserved':
    case 'QuoteCreated':
    case 'AuctionClosed':
    case 'SettlementSubmitted':
    case 'SettlementFailed':
    case 'SubscriptionAdded':
    case 'SubscriptionVerified':
    case 'SubscriptionRemoved':
    case 'DeploymentIdentified':
      return state;
    case 'TradeSettled':
      return { ...addTrade(state, event.data, 1n), trades: [...state.trades, event.data] };
    case 'OrderCancelled':
      if (event.data.source === 'chain') {
        return { ...state, invalidations: [...state.invalidations, event.data] };
      }
      return state.cancellation === null ? { ...state, cancellation: event.data } : state;
    case 'PreSignatureSet':
      return { ...state, preSignatures: [...state.preSignatures, event.data] };
    case 'ChainFactReverted':
      return revert(state, event.data.reverted);
  }
}

/**
 * The order's state from its events (its API stream and its on-chain stream, in any
 * interleaving), or null when it was never placed. Chain facts recorded before the placement
 * still count (a pre-signature can be set on chain before the order reaches the API): every
 * fact commutes with the others but the first API cancellation and a fact's own revert, which
 * always follows it in its stream.
 */
export function foldOrder(events: readonly DomainEvent[]): OrderState | null {
  const placement = events.find((e) => e.type === 'OrderPlaced' || e.type === 'EthFlowOrderPlaced');
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
    invalidated: state.cancellation !== null || state.invalidations.length > 0,
    presignaturePending:
      state.placed.signingScheme === 'presign' && latestPreSignature(state) !== true,
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

const refusal = (errorType: OrderRejection['errorType'], description: string): OrderRejection => ({
  errorType,
  description,
});

/**
 * Why this order cannot be cancelled off-chain, if it cannot (reference §4.3 step 2). The same
 * rule decides whether an order can be replaced (reference §4.1 step 3).
 */
export function cancellationRefusal(
  state: OrderState | null,
  nowSeconds: number,
): OrderRejection | null {
  if (state === null) return refusal('OrderNotFound', 'Order not located in database');
  const ecdsa = state.placed.signingScheme === 'eip712' || state.placed.signingScheme === 'ethsign';
  switch (orderStatus(statusInputs(state), nowSeconds)) {
    case 'presignaturePending':
      return refusal('OnChainOrder', 'On-chain orders must be cancelled on-chain');
    case 'open':
      return ecdsa ? null : refusal('OnChainOrder', 'On-chain orders must be cancelled on-chain');
    case 'fulfilled':
      return refusal('OrderFullyExecuted', 'Order is fully executed');
    case 'cancelled':
      return refusal('AlreadyCancelled', 'Order is already cancelled');
    case 'expired':
      return refusal('OrderExpired', 'Order is expired');
  }
}

/**
 * All or nothing, checked in the reference's order: each order in turn must exist and be open
 * (first failure wins), then the signature must recover, then the signer must own every listed
 * order. Only then are they all cancelled.
 */
export function decideCancellation(request: CancellationInput): CancellationDecision {
  for (const { state } of request.orders) {
    const error = cancellationRefusal(state, request.nowSeconds);
    if (error !== null) return { ok: false, error };
  }
  const { signer } = request;
  if (signer === null) {
    return { ok: false, error: refusal('InvalidSignature', 'Malformed signature') };
  }
  if (request.orders.some(({ state }) => state?.placed.owner !== signer)) {
    const error = refusal('WrongOwner', "Signature recovery's owner doesn't match order's");
    return { ok: false, error };
  }
  return { ok: true, cancel: [...new Set(request.orders.map(({ uid }) => uid))] };
}
