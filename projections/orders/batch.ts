/**
 * Reduces a batch of order events to one set of rows per statement. The reduced batch has the
 * same effect as its events applied one by one, at any batch boundary: fills add up, the first
 * API cancellation wins, the latest pre-signature by chain coordinates wins, and an order's
 * events only ever meet its row after its placement.
 *
 * Hex values are stored as the events carry them: lowercase, by the events' contract.
 */
import { validateAppData } from '../../src/domain/app-data.js';
import type {
  OrderCancelledV1,
  OrderPlacedV1,
  PreSignatureSetV1,
  TradeSettledV1,
} from '../../src/domain/events.js';
import type { EventOf } from '../events.js';

export type OrderEvent = EventOf<
  'OrderPlaced' | 'OrderCancelled' | 'TradeSettled' | 'PreSignatureSet'
>;

export const ORDER_EVENT_TYPES: ReadonlySet<OrderEvent['type']> = new Set([
  'OrderPlaced',
  'OrderCancelled',
  'TradeSettled',
  'PreSignatureSet',
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
}

/** What fills and cancellations do to one order: added to its row, or folded into its placement. */
interface Effects {
  sell: bigint;
  buy: bigint;
  fee: bigint;
  /** The first API cancellation. */
  cancelledAt: string | null;
  onchain: boolean;
}

/** A placement with the effects of the batch's later events on the same order folded in. */
export type PlacedWithEffectsRow = PlacedRow & {
  executed_sell_amount: string;
  executed_buy_amount: string;
  executed_fee_amount: string;
  cancellation_date: string | null;
  invalidated_onchain: boolean;
};

/** Effects on an order placed before this batch. */
export interface EffectsRow {
  network: string;
  uid: string;
  sell: string;
  buy: string;
  fee: string;
  cancelled_at: string | null;
  onchain: boolean;
}

export interface PreSignatureRow {
  network: string;
  uid: string;
  block_number: number;
  log_index: number;
  signed: boolean;
}

/** Applied in this order: effects on earlier orders, placements, pre-signatures. */
export interface OrdersBatch {
  effects: EffectsRow[];
  placed: PlacedWithEffectsRow[];
  presignatures: PreSignatureRow[];
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
  };
}

const later = (a: PreSignatureRow, b: PreSignatureSetV1['chain']): boolean =>
  b.blockNumber > a.block_number || (b.blockNumber === a.block_number && b.logIndex >= a.log_index);

const noEffects = (): Effects => ({
  sell: 0n,
  buy: 0n,
  fee: 0n,
  cancelledAt: null,
  onchain: false,
});

/**
 * Fills and cancellations of an order placed earlier in the same batch are folded into its
 * placement, so the common case (placement and first events close together, and every replay)
 * costs one insert rather than an insert and an update. Effects seen before the placement in
 * the batch (or with no placement in it) update the existing row, before the inserts run.
 */
export function reduceOrderEvents(events: readonly OrderEvent[]): OrdersBatch {
  const placed = new Map<string, { row: PlacedRow; effects: Effects }>();
  const effects = new Map<string, { network: string; uid: string; effects: Effects }>();
  const presignatures = new Map<string, PreSignatureRow>();
  const key = (d: { network: string; uid: string }) => `${d.network}/${d.uid}`;
  const effectsOf = (d: { network: string; uid: string }): Effects => {
    const k = key(d);
    const folded = placed.get(k);
    if (folded) return folded.effects;
    let earlier = effects.get(k);
    if (!earlier)
      effects.set(k, (earlier = { network: d.network, uid: d.uid, effects: noEffects() }));
    return earlier.effects;
  };

  const place = (d: OrderPlacedV1) => {
    const k = key(d);
    // A duplicate placement changes nothing, as the row's first placement stays.
    if (!placed.has(k)) placed.set(k, { row: placedRow(d), effects: noEffects() });
  };
  const fill = (d: TradeSettledV1) => {
    const e = effectsOf(d);
    e.sell += BigInt(d.sellAmount);
    e.buy += BigInt(d.buyAmount);
    e.fee += BigInt(d.feeAmount);
  };
  const cancel = (d: OrderCancelledV1) => {
    const e = effectsOf(d);
    if (d.source === 'chain') e.onchain = true;
    else e.cancelledAt ??= d.cancelledAt;
  };
  const presign = (d: PreSignatureSetV1) => {
    const k = key(d);
    const current = presignatures.get(k);
    if (current && !later(current, d.chain)) return;
    presignatures.set(k, {
      network: d.network,
      uid: d.uid,
      block_number: d.chain.blockNumber,
      log_index: d.chain.logIndex,
      signed: d.signed,
    });
  };

  for (const e of events) {
    switch (e.type) {
      case 'OrderPlaced':
        place(e.data);
        break;
      case 'TradeSettled':
        fill(e.data);
        break;
      case 'OrderCancelled':
        cancel(e.data);
        break;
      case 'PreSignatureSet':
        presign(e.data);
        break;
    }
  }
  return {
    effects: [...effects.values()].map(({ network, uid, effects: e }) => ({
      network,
      uid,
      sell: e.sell.toString(),
      buy: e.buy.toString(),
      fee: e.fee.toString(),
      cancelled_at: e.cancelledAt,
      onchain: e.onchain,
    })),
    // Completed in place: a replay builds thousands of these per batch.
    placed: [...placed.values()].map(({ row, effects: e }) =>
      Object.assign(row, {
        executed_sell_amount: e.sell.toString(),
        executed_buy_amount: e.buy.toString(),
        executed_fee_amount: e.fee.toString(),
        cancellation_date: e.cancelledAt,
        invalidated_onchain: e.onchain,
      }),
    ),
    presignatures: [...presignatures.values()],
  };
}
