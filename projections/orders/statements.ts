/**
 * The orders projector's SQL: one statement per kind of change per batch, each taking all of
 * its rows at once (see ../columns.ts), which keeps a batch to at most three round trips however
 * many orders it touches.
 */
import { ColumnSet } from '../columns.js';
import { qualified } from '../sql.js';
import type { EffectsRow, PlacedWithEffectsRow, PreSignatureRow } from './batch.js';
import { ORDERS_TABLE, PRESIGNATURES_TABLE } from './migrations.js';

export const placedColumns = new ColumnSet<PlacedWithEffectsRow>([
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
  ['executed_sell_amount', 'numeric'],
  ['executed_buy_amount', 'numeric'],
  ['executed_fee_amount', 'numeric'],
  ['cancellation_date', 'timestamptz'],
  ['invalidated_onchain', 'boolean'],
]);

export const effectsColumns = new ColumnSet<EffectsRow>([
  ['network', 'text'],
  ['uid', 'text'],
  ['sell', 'numeric'],
  ['buy', 'numeric'],
  ['fee', 'numeric'],
  ['cancelled_at', 'timestamptz'],
  ['onchain', 'boolean'],
]);

export const presignatureColumns = new ColumnSet<PreSignatureRow>([
  ['network', 'text'],
  ['uid', 'text'],
  ['block_number', 'bigint'],
  ['log_index', 'integer'],
  ['signed', 'boolean'],
]);

/** Fills add up; the first API cancellation stays; an on-chain invalidation is for good. */
function addEffects(sell: string, buy: string, fee: string, at: string, onchain: string): string {
  return `executed_sell_amount = o.executed_sell_amount + ${sell},
      executed_buy_amount = o.executed_buy_amount + ${buy},
      executed_fee_amount = o.executed_fee_amount + ${fee},
      cancellation_date = COALESCE(o.cancellation_date, ${at}),
      invalidated_onchain = o.invalidated_onchain OR ${onchain}`;
}

export interface OrdersStatements {
  addEffects: string;
  insertPlaced: string;
  presign: string;
}

export function ordersStatements(schema: string): OrdersStatements {
  const orders = qualified(schema, ORDERS_TABLE);
  const placed = placedColumns;
  return {
    addEffects: `UPDATE ${orders} AS o
      SET ${addEffects('x.sell', 'x.buy', 'x.fee', 'x.cancelled_at', 'x.onchain')}
      FROM ${effectsColumns.unnest}
      WHERE o.network = x.network AND o.uid = x.uid`,
    // A placement is the first event of its stream, so a conflict means a re-read duplicate:
    // the first placement stays, and only the effects folded into this one still apply.
    insertPlaced: `INSERT INTO ${orders} AS o (${placed.names})
      SELECT ${placed.names} FROM ${placed.unnest}
      ON CONFLICT (network, uid) DO UPDATE SET ${addEffects(
        'excluded.executed_sell_amount',
        'excluded.executed_buy_amount',
        'excluded.executed_fee_amount',
        'excluded.cancellation_date',
        'excluded.invalidated_onchain',
      )}`,
    presign: `INSERT INTO ${qualified(schema, PRESIGNATURES_TABLE)} AS p (${presignatureColumns.names})
      SELECT ${presignatureColumns.names} FROM ${presignatureColumns.unnest}
      ON CONFLICT (network, uid) DO UPDATE SET
        block_number = excluded.block_number, log_index = excluded.log_index, signed = excluded.signed
      WHERE (excluded.block_number, excluded.log_index) >= (p.block_number, p.log_index)`,
  };
}
