/**
 * Reduces a batch of order events to one set of rows per statement. The reduced batch has the
 * same effect as its events applied one by one, at any batch boundary: the first API
 * cancellation wins; chain facts (fills, invalidations, eth-flow refunds) add up as signed
 * deltas, so a reorg's revert subtracts what its fact added; a pre-signature log is present or
 * absent as its last event in the batch says (the latest present one counts, chosen at read
 * time); and an eth-flow order is placed or, its placement reverted, gone, as its last
 * placement event in the batch says.
 *
 * Hex values are stored as the events carry them: lowercase, by the events' contract.
 */
import { validateAppData } from '../../src/domain/app-data.js';
import { ethFlowPlacement } from '../../src/domain/eth-flow.js';
import type {
  ChainFact,
  EthFlowOrderPlacedV1,
  EthFlowOrderRefundedV1,
  OrderCancelledV1,
  OrderPlacedV1,
  PreSignatureSetV1,
  TradeSettledV1,
} from '../../src/domain/events.js';
import type { EventOf } from '../events.js';

export type OrderEvent = EventOf<
  | 'OrderPlaced'
  | 'OrderCancelled'
  | 'TradeSettled'
  | 'PreSignatureSet'
  | 'EthFlowOrderPlaced'
  | 'EthFlowOrderRefunded'
  | 'ChainFactReverted'
>;

export const ORDER_EVENT_TYPES: ReadonlySet<OrderEvent['type']> = new Set([
  'OrderPlaced',
  'OrderCancelled',
  'TradeSettled',
  'PreSignatureSet',
  'EthFlowOrderPlaced',
  'EthFlowOrderRefunded',
  'ChainFactReverted',
]);

/** One row of the orders table: column name → value. */
export interface PlacedRow {
  network: string;
  uid: string;
  owner: string;
  creation_date: string;
  class: string;
  signing_scheme: string;
  signature: string;
  sell_token: string;
  buy_token: string;
  receiver: string | null;
  sell_amount: string;
  buy_amount: string;
  valid_to: number;
  app_data: string;
  fee_amount: string;
  kind: string;
  partially_fillable: boolean;
  sell_token_balance: string;
  buy_token_balance: string;
  full_app_data: string | null;
  valid_from: number | null;
  quote: unknown;
  interactions: unknown;
  settlement_contract: string;
  /** Eth-flow orders only: the trader's deadline, who placed it, why it cannot trade. */
  ethflow_user_valid_to: number | null;
  onchain_sender: string | null;
  placement_error: string | null;
}

/** A placement with the batch's later API cancellation of the same order folded in. */
export type PlacedWithCancellationRow = PlacedRow & { cancellation_date: string | null };

/** The first API cancellation of an order placed before this batch. */
export interface CancellationRow {
  network: string;
  uid: string;
  cancelled_at: string;
}

/** What the chain did to one order in this batch, as deltas (negative after a reorg). */
export interface ChainEffectsRow {
  network: string;
  uid: string;
  sell: string;
  buy: string;
  fee: string;
  invalidations: number;
  /** Who invalidated it on chain (`onchainUser`), when this batch invalidated it. */
  invalidated_by: string | null;
  refunds: number;
  /** The eth-flow refund's transaction, when this batch refunded it. */
  refund_tx: string | null;
}

/** An eth-flow order whose placement a reorg took back. */
export interface RemovedPlacementRow {
  network: string;
  uid: string;
}

/** One pre-signature log, keyed by (network, uid, block hash, log index). */
export interface PreSignatureRow {
  network: string;
  uid: string;
  block_number: number;
  block_hash: string;
  log_index: number;
  signed: boolean;
}

/**
 * Applied in this order: cancellations of earlier orders, eth-flow placements taken back,
 * placements, chain effects, logs.
 */
export interface OrdersBatch {
  cancellations: CancellationRow[];
  removedPlacements: RemovedPlacementRow[];
  placed: PlacedWithCancellationRow[];
  chainEffects: ChainEffectsRow[];
  /** Pre-signature logs on the canonical chain after this batch. */
  presignatures: PreSignatureRow[];
  /** Pre-signature logs a reorg took back. */
  revertedPresignatures: PreSignatureRow[];
}

/** metadata.validFrom of the order's app data (only parsed when the key can be there). */
function validFrom(fullAppData: string | null): number | null {
  if (fullAppData === null || !fullAppData.includes('validFrom')) return null;
  // The document passed validation with the size limit of its time; the projector must not
  // depend on today's configuration, hence no limit here.
  const parsed = validateAppData(fullAppData, Number.POSITIVE_INFINITY);
  return parsed.ok ? (parsed.appData.validFrom ?? null) : null;
}

function placedRow(d: OrderPlacedV1): PlacedRow {
  const o = d.order;
  return {
    network: d.network,
    uid: d.uid,
    owner: d.owner,
    creation_date: d.creationDate,
    class: d.class,
    signing_scheme: d.signingScheme,
    signature: d.signature,
    sell_token: o.sellToken,
    buy_token: o.buyToken,
    receiver: o.receiver,
    sell_amount: o.sellAmount,
    buy_amount: o.buyAmount,
    valid_to: o.validTo,
    app_data: o.appData,
    fee_amount: o.feeAmount,
    kind: o.kind,
    partially_fillable: o.partiallyFillable,
    sell_token_balance: o.sellTokenBalance,
    buy_token_balance: o.buyTokenBalance,
    full_app_data: d.fullAppData,
    valid_from: validFrom(d.fullAppData),
    quote: d.quote,
    interactions: d.interactions,
    settlement_contract: d.settlementContract,
    ethflow_user_valid_to: null,
    onchain_sender: null,
    placement_error: null,
  };
}

function ethFlowRow(d: EthFlowOrderPlacedV1): PlacedWithCancellationRow {
  return {
    ...placedRow(ethFlowPlacement(d)),
    ethflow_user_valid_to: d.userValidTo,
    onchain_sender: d.sender,
    placement_error: d.placementError,
    cancellation_date: null,
  };
}

interface ChainEffects {
  network: string;
  uid: string;
  sell: bigint;
  buy: bigint;
  fee: bigint;
  invalidations: number;
  invalidatedBy: string | null;
  refunds: number;
  refundTx: string | null;
}

const presignatureRow = (d: PreSignatureSetV1): PreSignatureRow => ({
  network: d.network,
  uid: d.uid,
  block_number: d.chain.blockNumber,
  block_hash: d.chain.blockHash,
  log_index: d.chain.logIndex,
  signed: d.signed,
});

/**
 * API cancellations of an order placed earlier in the same batch are folded into its placement,
 * so the common case (and every replay) costs one insert rather than an insert and an update.
 */
export function reduceOrderEvents(events: readonly OrderEvent[]): OrdersBatch {
  const placed = new Map<string, PlacedWithCancellationRow>();
  const cancellations = new Map<string, CancellationRow>();
  const chain = new Map<string, ChainEffects>();
  // Last word per eth-flow order: placed (with its row) or its placement reverted.
  const ethFlow = new Map<string, { row: PlacedWithCancellationRow; present: boolean }>();
  // Last word per log: present (set) or absent (reverted).
  const presignatures = new Map<string, { row: PreSignatureRow; present: boolean }>();
  const key = (d: { network: string; uid: string }) => `${d.network}/${d.uid}`;

  const place = (d: OrderPlacedV1) => {
    // A duplicate placement changes nothing, as the row's first placement stays.
    if (!placed.has(key(d))) placed.set(key(d), { ...placedRow(d), cancellation_date: null });
  };
  const cancelByApi = (d: OrderCancelledV1) => {
    const folded = placed.get(key(d));
    if (folded) folded.cancellation_date ??= d.cancelledAt;
    else if (!cancellations.has(key(d))) {
      cancellations.set(key(d), { network: d.network, uid: d.uid, cancelled_at: d.cancelledAt });
    }
  };
  const effectsOf = (d: { network: string; uid: string }): ChainEffects => {
    let e = chain.get(key(d));
    if (!e) {
      e = {
        network: d.network,
        uid: d.uid,
        sell: 0n,
        buy: 0n,
        fee: 0n,
        invalidations: 0,
        invalidatedBy: null,
        refunds: 0,
        refundTx: null,
      };
      chain.set(key(d), e);
    }
    return e;
  };
  const fill = (d: TradeSettledV1, sign: 1n | -1n) => {
    const e = effectsOf(d);
    e.sell += sign * BigInt(d.sellAmount);
    e.buy += sign * BigInt(d.buyAmount);
    e.fee += sign * BigInt(d.feeAmount);
  };
  const invalidate = (d: OrderCancelledV1, sign: 1 | -1) => {
    const e = effectsOf(d);
    e.invalidations += sign;
    if (sign === 1) e.invalidatedBy ??= d.by;
  };
  const refund = (d: EthFlowOrderRefundedV1, sign: 1 | -1) => {
    const e = effectsOf(d);
    e.refunds += sign;
    if (sign === 1) e.refundTx ??= d.chain.txHash;
  };
  const placeOnChain = (d: EthFlowOrderPlacedV1, present: boolean) => {
    ethFlow.set(key(d), { row: ethFlowRow(d), present });
  };
  const presign = (d: PreSignatureSetV1, present: boolean) => {
    const row = presignatureRow(d);
    presignatures.set(`${key(d)}/${row.block_hash}/${row.log_index}`, { row, present });
  };
  const revert = (fact: ChainFact) => {
    switch (fact.type) {
      case 'TradeSettled':
        return fill(fact.data, -1n);
      case 'OrderCancelled':
        return invalidate(fact.data, -1);
      case 'PreSignatureSet':
        return presign(fact.data, false);
      case 'EthFlowOrderPlaced':
        return placeOnChain(fact.data, false);
      case 'EthFlowOrderRefunded':
        return refund(fact.data, -1);
      case 'SettlementObserved':
        return;
    }
  };

  for (const e of events) {
    switch (e.type) {
      case 'OrderPlaced':
        place(e.data);
        break;
      case 'TradeSettled':
        fill(e.data, 1n);
        break;
      case 'OrderCancelled':
        if (e.data.source === 'chain') invalidate(e.data, 1);
        else cancelByApi(e.data);
        break;
      case 'PreSignatureSet':
        presign(e.data, true);
        break;
      case 'EthFlowOrderPlaced':
        placeOnChain(e.data, true);
        break;
      case 'EthFlowOrderRefunded':
        refund(e.data, 1);
        break;
      case 'ChainFactReverted':
        revert(e.data.reverted);
        break;
    }
  }
  const logs = [...presignatures.values()];
  const onChain = [...ethFlow.values()];
  return {
    cancellations: [...cancellations.values()],
    removedPlacements: onChain
      .filter((p) => !p.present)
      .map(({ row }) => ({ network: row.network, uid: row.uid })),
    // An API placement of the same UID came first: its row stays, as a re-read placement's would.
    placed: [
      ...placed.values(),
      ...onChain.filter((p) => p.present && !placed.has(key(p.row))).map((p) => p.row),
    ],
    chainEffects: [...chain.values()].map((e) => ({
      network: e.network,
      uid: e.uid,
      sell: e.sell.toString(),
      buy: e.buy.toString(),
      fee: e.fee.toString(),
      invalidations: e.invalidations,
      invalidated_by: e.invalidatedBy,
      refunds: e.refunds,
      refund_tx: e.refundTx,
    })),
    presignatures: logs.filter((l) => l.present).map((l) => l.row),
    revertedPresignatures: logs.filter((l) => !l.present).map((l) => l.row),
  };
}
