/**
 * The orders read model: one row per (network, uid) with everything the API's `Order` needs
 * except what depends on the clock (`status` is derived at read time), and the latest
 * pre-signature per order in its own table, because the chain may pre-sign a UID before (or
 * without) the order being placed, as the reference's separate `presignature_events` allows.
 */
import type { Knex } from 'knex';
import { qualified } from '../sql.js';

export const ORDERS_TABLE = 'orders';
export const PRESIGNATURES_TABLE = 'presignatures';

export async function migrateOrders(db: Knex, schema: string): Promise<void> {
  const orders = qualified(schema, ORDERS_TABLE);
  await db.raw(`
    CREATE TABLE IF NOT EXISTS ${orders} (
      network text NOT NULL,
      uid text NOT NULL,
      owner text NOT NULL,
      creation_date timestamptz NOT NULL,
      class text NOT NULL,
      signing_scheme text NOT NULL,
      signature text NOT NULL,
      sell_token text NOT NULL,
      buy_token text NOT NULL,
      receiver text,
      sell_amount numeric(78,0) NOT NULL,
      buy_amount numeric(78,0) NOT NULL,
      valid_to bigint NOT NULL,
      app_data text NOT NULL,
      fee_amount numeric(78,0) NOT NULL,
      kind text NOT NULL,
      partially_fillable boolean NOT NULL,
      sell_token_balance text NOT NULL,
      buy_token_balance text NOT NULL,
      full_app_data text,
      -- From the app data's metadata.validFrom; null when the order has no lower bound.
      valid_from bigint,
      quote jsonb,
      interactions jsonb NOT NULL,
      settlement_contract text NOT NULL,
      -- Sums over TradeSettled: sell includes the fee, fee is the signed fee executed.
      executed_sell_amount numeric(78,0) NOT NULL DEFAULT 0,
      executed_buy_amount numeric(78,0) NOT NULL DEFAULT 0,
      executed_fee_amount numeric(78,0) NOT NULL DEFAULT 0,
      -- The first API cancellation (later ones do not move it), as the reference keeps it.
      cancellation_date timestamptz,
      invalidated_onchain boolean NOT NULL DEFAULT false,
      PRIMARY KEY (network, uid)
    )`);
  // GET /account/{owner}/orders: newest first (ties on uid are sorted incrementally). uid is
  // deliberately not a column here: with it, PostgreSQL 18 may answer `uid = ANY(...)` lookups
  // by a skip scan of this index instead of the primary key when statistics lag behind a burst
  // of inserts (measured: 3.5 ms instead of 0.2 ms for 8 orders out of 22,000).
  await db.raw(
    `CREATE INDEX IF NOT EXISTS orders_by_owner ON ${orders} (network, owner, creation_date DESC)`,
  );
  await db.raw(`
    CREATE TABLE IF NOT EXISTS ${qualified(schema, PRESIGNATURES_TABLE)} (
      network text NOT NULL,
      uid text NOT NULL,
      -- Chain coordinates of the latest PreSignature log: a later log wins, whatever the
      -- order in which the indexer appended them.
      block_number bigint NOT NULL,
      log_index integer NOT NULL,
      signed boolean NOT NULL,
      PRIMARY KEY (network, uid)
    )`);
}
