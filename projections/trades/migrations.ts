/**
 * The trades read model: one row per `Trade` log still on the canonical chain (the reference's
 * `trades`), and one per `Settlement` log (its `settlements`, which the competition endpoints
 * join on). A log is its block hash and log index: a reorg's revert names exactly that pair,
 * and the same log coming back on the canonical chain is the same row again.
 */
import type { Knex } from 'knex';
import { qualified } from '../sql.js';

export const TRADES_TABLE = 'trades';
export const SETTLEMENTS_TABLE = 'settlements';
const TRADES_BY_OWNER_INDEX = 'trades_by_owner';
const TRADES_BY_ORDER_INDEX = 'trades_by_order';
const TRADES_BY_TX_INDEX = 'trades_by_tx';
const SETTLEMENTS_BY_TX_INDEX = 'settlements_by_tx';
/** Only the API's reads use them (a replay builds them after the rows). */
export const TRADES_READER_INDEXES = [
  TRADES_BY_OWNER_INDEX,
  TRADES_BY_ORDER_INDEX,
  TRADES_BY_TX_INDEX,
  SETTLEMENTS_BY_TX_INDEX,
];

export async function migrateTrades(db: Knex, schema: string): Promise<void> {
  const trades = qualified(schema, TRADES_TABLE);
  await db.raw(`
    CREATE TABLE IF NOT EXISTS ${trades} (
      network text NOT NULL,
      block_number bigint NOT NULL,
      log_index integer NOT NULL,
      block_hash text NOT NULL,
      tx_hash text NOT NULL,
      order_uid text NOT NULL,
      owner text NOT NULL,
      sell_token text NOT NULL,
      buy_token text NOT NULL,
      -- Sell token transferred, fee included (the Trade log's sellAmount).
      sell_amount numeric(78,0) NOT NULL,
      buy_amount numeric(78,0) NOT NULL,
      fee_amount numeric(78,0) NOT NULL,
      PRIMARY KEY (network, block_hash, log_index)
    )`);
  // GET /trades by owner or by order, newest first (reference §2).
  await db.raw(`CREATE INDEX IF NOT EXISTS ${TRADES_BY_OWNER_INDEX}
    ON ${trades} (network, owner, block_number DESC, log_index DESC)`);
  await db.raw(`CREATE INDEX IF NOT EXISTS ${TRADES_BY_ORDER_INDEX}
    ON ${trades} (network, order_uid, block_number DESC, log_index DESC)`);
  // GET /transactions/{txHash}/orders.
  await db.raw(`CREATE INDEX IF NOT EXISTS ${TRADES_BY_TX_INDEX} ON ${trades} (network, tx_hash)`);

  const settlements = qualified(schema, SETTLEMENTS_TABLE);
  await db.raw(`
    CREATE TABLE IF NOT EXISTS ${settlements} (
      network text NOT NULL,
      tx_hash text NOT NULL,
      block_number bigint NOT NULL,
      log_index integer NOT NULL,
      block_hash text NOT NULL,
      solver text NOT NULL,
      PRIMARY KEY (network, block_hash, log_index)
    )`);
  await db.raw(
    `CREATE INDEX IF NOT EXISTS ${SETTLEMENTS_BY_TX_INDEX} ON ${settlements} (network, tx_hash)`,
  );
}
