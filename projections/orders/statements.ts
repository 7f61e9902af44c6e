/**
 * The orders projector's SQL: one statement per kind of change per batch, each taking all of
 * its rows at once (see ../columns.ts), which keeps a batch to at most three round trips however
 * many orders it touches.
 */
import { ColumnSet } from '../columns.js';
import { qualified } from '../sql.js';
import type {
  CancellationRow,
  ChainEffectsRow,
  PlacedWithCancellationRow,
  PreSignatureRow,
  RemovedPlacementRow,
} from './batch.js';
import { ORDER_CHAIN_STATE_TABLE, ORDERS_TABLE, PRESIGNATURE_EVENTS_TABLE } from './migrations.js';

export const placedColumns = new ColumnSet<PlacedWithCancellationRow>([
  ['network', 'text'],
  ['uid', 'text'],
  ['owner', 'text'],
  ['creation_date', 'timestamptz'],
  ['class', 'text'],
  ['signing_scheme', 'text'],
  ['signature', 'text'],
  ['sell_token', 'text'],
  ['buy_token', 'text'],
  ['receiver', 'text'],
  ['sell_amount', 'numeric'],
  ['buy_amount', 'numeric'],
  ['valid_to', 'bigint'],
  ['app_data', 'text'],
  ['fee_amount', 'numeric'],
  ['kind', 'text'],
  ['partially_fillable', 'boolean'],
  ['sell_token_balance', 'text'],
  ['buy_token_balance', 'text'],
  ['full_app_data', 'text'],
  ['valid_from', 'bigint'],
  ['quote', 'jsonb'],
  ['interactions', 'jsonb'],
  ['settlement_contract', 'text'],
  ['cancellation_date', 'timestamptz'],
  ['ethflow_user_valid_to', 'bigint'],
  ['onchain_sender', 'text'],
  ['placement_error', 'text'],
]);

export const removedPlacementColumns = new ColumnSet<RemovedPlacementRow>([
  ['network', 'text'],
  ['uid', 'text'],
]);

export const cancellationColumns = new ColumnSet<CancellationRow>([
  ['network', 'text'],
  ['uid', 'text'],
  ['cancelled_at', 'timestamptz'],
]);

export const chainEffectsColumns = new ColumnSet<ChainEffectsRow>([
  ['network', 'text'],
  ['uid', 'text'],
  ['sell', 'numeric'],
  ['buy', 'numeric'],
  ['fee', 'numeric'],
  ['invalidations', 'integer'],
  ['invalidated_by', 'text'],
  ['refunds', 'integer'],
  ['refund_tx', 'text'],
]);

export const presignatureColumns = new ColumnSet<PreSignatureRow>([
  ['network', 'text'],
  ['uid', 'text'],
  ['block_number', 'bigint'],
  ['block_hash', 'text'],
  ['log_index', 'integer'],
  ['signed', 'boolean'],
]);

export interface OrdersStatements {
  cancel: string;
  removePlacement: string;
  insertPlaced: string;
  addChainEffects: string;
  presign: string;
  revertPresign: string;
}

export function ordersStatements(schema: string): OrdersStatements {
  const orders = qualified(schema, ORDERS_TABLE);
  const chain = qualified(schema, ORDER_CHAIN_STATE_TABLE);
  const presignatures = qualified(schema, PRESIGNATURE_EVENTS_TABLE);
  const placed = placedColumns;
  const c = chainEffectsColumns;
  const p = presignatureColumns;
  return {
    // The first API cancellation stays.
    cancel: `UPDATE ${orders} AS o
      SET cancellation_date = COALESCE(o.cancellation_date, x.cancelled_at)
      FROM ${cancellationColumns.unnest}
      WHERE o.network = x.network AND o.uid = x.uid`,
    // Only an eth-flow order's row: an API placement is never taken back.
    removePlacement: `DELETE FROM ${orders} AS o
      USING ${removedPlacementColumns.unnest}
      WHERE o.network = x.network AND o.uid = x.uid AND o.ethflow_user_valid_to IS NOT NULL`,
    // A placement is the first event of its stream, so a conflict means a re-read duplicate:
    // the first placement stays, and only a cancellation folded into this one still applies.
    insertPlaced: `INSERT INTO ${orders} AS o (${placed.names})
      SELECT ${placed.names} FROM ${placed.unnest}
      ON CONFLICT (network, uid) DO UPDATE
        SET cancellation_date = COALESCE(o.cancellation_date, excluded.cancellation_date)`,
    // Deltas add up; onchainUser is known while at least one invalidation stands.
    addChainEffects: `INSERT INTO ${chain} AS c (network, uid, executed_sell_amount,
        executed_buy_amount, executed_fee_amount, onchain_invalidations, onchain_user,
        ethflow_refunds, ethflow_refund_tx)
      SELECT network, uid, sell, buy, fee, invalidations,
        CASE WHEN invalidations > 0 THEN invalidated_by END,
        refunds, CASE WHEN refunds > 0 THEN refund_tx END
      FROM ${c.unnest}
      ON CONFLICT (network, uid) DO UPDATE SET
        executed_sell_amount = c.executed_sell_amount + excluded.executed_sell_amount,
        executed_buy_amount = c.executed_buy_amount + excluded.executed_buy_amount,
        executed_fee_amount = c.executed_fee_amount + excluded.executed_fee_amount,
        onchain_invalidations = c.onchain_invalidations + excluded.onchain_invalidations,
        onchain_user = CASE WHEN c.onchain_invalidations + excluded.onchain_invalidations > 0
          THEN COALESCE(c.onchain_user, excluded.onchain_user) END,
        ethflow_refunds = c.ethflow_refunds + excluded.ethflow_refunds,
        ethflow_refund_tx = CASE WHEN c.ethflow_refunds + excluded.ethflow_refunds > 0
          THEN COALESCE(c.ethflow_refund_tx, excluded.ethflow_refund_tx) END`,
    presign: `INSERT INTO ${presignatures} (${p.names})
      SELECT ${p.names} FROM ${p.unnest}
      ON CONFLICT DO NOTHING`,
    revertPresign: `DELETE FROM ${presignatures} AS e
      USING ${p.unnest}
      WHERE e.network = x.network AND e.uid = x.uid
        AND e.block_hash = x.block_hash AND e.log_index = x.log_index`,
  };
}
