/**
 * The auctions read model: every closed auction (what GET /api/v1/auction serves), the solver
 * competition of each (its ranked solutions and the orders each would trade), what became of
 * the winners' settlements, which orders some auction has taken in, and the latest native price
 * of every token an auction priced.
 *
 * Auctions can hold 10,000 orders every two seconds, so nothing here has a row per order of an
 * auction: an auction's orders stay in its own row (their UIDs and executed amounts as arrays),
 * and only the orders solutions trade get rows of their own.
 */
import type { Knex } from 'knex';
import { qualified } from '../sql.js';

export const AUCTIONS_TABLE = 'auctions';
export const SOLUTIONS_TABLE = 'competition_solutions';
export const SOLUTION_ORDERS_TABLE = 'competition_orders';
export const ATTEMPTS_TABLE = 'settlement_attempts';
export const AUCTIONED_ORDERS_TABLE = 'auctioned_orders';
export const TOKEN_PRICES_TABLE = 'auction_token_prices';

export const AUCTION_TABLES = [
  AUCTIONS_TABLE,
  SOLUTIONS_TABLE,
  SOLUTION_ORDERS_TABLE,
  ATTEMPTS_TABLE,
  AUCTIONED_ORDERS_TABLE,
  TOKEN_PRICES_TABLE,
] as const;

export async function migrateAuctions(db: Knex, schema: string): Promise<void> {
  const auctions = qualified(schema, AUCTIONS_TABLE);
  await db.raw(`
    CREATE TABLE IF NOT EXISTS ${auctions} (
      network text NOT NULL,
      id bigint NOT NULL,
      block bigint NOT NULL,
      cut_at timestamptz NOT NULL,
      -- Until then a winner's orders whose settlement neither failed nor landed are in flight.
      deadline timestamptz NOT NULL,
      deadline_block bigint NOT NULL,
      -- The auction's orders (UIDs, and what each had executed by the cut, index by index) and
      -- those it filtered out. The rest of an order is in the orders read model: GET /auction
      -- joins it, an order's status and the competition's "auction.orders" need only the UIDs.
      order_uids text[] NOT NULL,
      order_executed numeric(78,0)[] NOT NULL,
      filtered_uids text[] NOT NULL,
      -- Why each was filtered out, index by index: an auction recording only its changes
      -- (AuctionClosed v5) is read back whole from the row of its base.
      filtered_reasons text[] NOT NULL,
      prices jsonb NOT NULL,
      PRIMARY KEY (network, id)
    )`);
  // The orders in flight: winners of the auctions whose deadline is still ahead.
  await db.raw(
    `CREATE INDEX IF NOT EXISTS auctions_by_deadline ON ${auctions} (network, deadline)`,
  );

  await db.raw(`
    CREATE TABLE IF NOT EXISTS ${qualified(schema, SOLUTIONS_TABLE)} (
      network text NOT NULL,
      auction_id bigint NOT NULL,
      -- 1 is the best.
      rank integer NOT NULL,
      solver text NOT NULL,
      solver_address text NOT NULL,
      score numeric(78,0) NOT NULL,
      is_winner boolean NOT NULL,
      filtered_out boolean NOT NULL,
      reference_score numeric(78,0),
      clearing_prices jsonb NOT NULL,
      PRIMARY KEY (network, auction_id, rank)
    )`);

  const orders = qualified(schema, SOLUTION_ORDERS_TABLE);
  await db.raw(`
    CREATE TABLE IF NOT EXISTS ${orders} (
      network text NOT NULL,
      auction_id bigint NOT NULL,
      rank integer NOT NULL,
      uid text NOT NULL,
      -- Where the order stands in the solution's trades.
      position integer NOT NULL,
      executed_amount numeric(78,0) NOT NULL,
      filled_after numeric(78,0) NOT NULL,
      sell_amount numeric(78,0) NOT NULL,
      buy_amount numeric(78,0) NOT NULL,
      -- The traded tokens, as the solution names them.
      sell_token text NOT NULL,
      buy_token text NOT NULL,
      PRIMARY KEY (network, auction_id, rank, uid)
    )`);
  // An order's competitions, latest first (its status).
  await db.raw(`CREATE INDEX IF NOT EXISTS competition_orders_by_uid
    ON ${orders} (network, uid, auction_id DESC)`);

  const attempts = qualified(schema, ATTEMPTS_TABLE);
  await db.raw(`
    CREATE TABLE IF NOT EXISTS ${attempts} (
      network text NOT NULL,
      auction_id bigint NOT NULL,
      -- The winning solution's rank.
      rank integer NOT NULL,
      -- Null while no transaction was sent (a failed simulation, a send that failed).
      tx_hash text,
      submitted_at timestamptz,
      failed_at timestamptz,
      failure_reason text,
      PRIMARY KEY (network, auction_id, rank)
    )`);
  // The competition of a transaction, and the auction whose settlement made a trade.
  await db.raw(`CREATE INDEX IF NOT EXISTS settlement_attempts_by_tx
    ON ${attempts} (network, tx_hash)`);

  await db.raw(`
    CREATE TABLE IF NOT EXISTS ${qualified(schema, AUCTIONED_ORDERS_TABLE)} (
      network text NOT NULL,
      -- An order some auction included or filtered out.
      uid text NOT NULL,
      PRIMARY KEY (network, uid)
    )`);

  await db.raw(`
    CREATE TABLE IF NOT EXISTS ${qualified(schema, TOKEN_PRICES_TABLE)} (
      network text NOT NULL,
      token text NOT NULL,
      -- The highest auction id that priced the token, and its price (1e18 = one native token).
      auction_id bigint NOT NULL,
      price numeric(78,0) NOT NULL,
      PRIMARY KEY (network, token)
    )`);
}
