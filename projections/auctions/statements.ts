/**
 * The auctions projector's SQL: one statement per table and batch, each taking all of its rows
 * at once (see ../columns.ts).
 */
import { ColumnSet, type Columns } from '../columns.js';
import { qualified } from '../sql.js';
import type {
  AttemptRow,
  AuctionKey,
  AuctionRow,
  SolutionOrderRow,
  SolutionRow,
  TokenPriceRow,
} from './batch.js';
import {
  ATTEMPTS_TABLE,
  AUCTIONED_ORDERS_TABLE,
  AUCTIONS_TABLE,
  SOLUTION_ORDERS_TABLE,
  SOLUTIONS_TABLE,
  TOKEN_PRICES_TABLE,
} from './migrations.js';

/** The auction row's own columns. */
const AUCTION_OWN_COLUMNS: Columns<AuctionRow> = [
  ['network', 'text'],
  ['id', 'bigint'],
  ['block', 'bigint'],
  ['cut_at', 'timestamptz'],
  ['deadline', 'timestamptz'],
  ['deadline_block', 'bigint'],
];
const AUCTION_ROW_COLUMNS = AUCTION_OWN_COLUMNS.map(([name]) => name).join(', ');
/** Those, and `auction` (the event): bound only for what is taken out of it. */
export const auctionColumns = new ColumnSet<AuctionRow>([
  ...AUCTION_OWN_COLUMNS,
  ['auction', 'jsonb'],
]);

export const auctionKeyColumns = new ColumnSet<AuctionKey>([
  ['network', 'text'],
  ['id', 'bigint'],
]);

export const solutionColumns = new ColumnSet<SolutionRow>([
  ['network', 'text'],
  ['auction_id', 'bigint'],
  ['rank', 'integer'],
  ['solver', 'text'],
  ['solver_address', 'text'],
  ['score', 'numeric'],
  ['is_winner', 'boolean'],
  ['filtered_out', 'boolean'],
  ['reference_score', 'numeric'],
  ['clearing_prices', 'jsonb'],
]);

export const solutionOrderColumns = new ColumnSet<SolutionOrderRow>([
  ['network', 'text'],
  ['auction_id', 'bigint'],
  ['rank', 'integer'],
  ['uid', 'text'],
  ['position', 'integer'],
  ['executed_amount', 'numeric'],
  ['filled_after', 'numeric'],
  ['sell_amount', 'numeric'],
  ['buy_amount', 'numeric'],
  ['sell_token', 'text'],
  ['buy_token', 'text'],
]);

export const tokenPriceColumns = new ColumnSet<TokenPriceRow>([
  ['network', 'text'],
  ['token', 'text'],
  ['auction_id', 'bigint'],
  ['price', 'numeric'],
]);

export const attemptColumns = new ColumnSet<AttemptRow>([
  ['network', 'text'],
  ['auction_id', 'bigint'],
  ['rank', 'integer'],
  ['tx_hash', 'text'],
  ['submitted_at', 'timestamptz'],
  ['failed_at', 'timestamptz'],
  ['failure_reason', 'text'],
]);

export interface AuctionsStatements {
  insertAuctions: string;
  /** The whole cuts of the given auctions: the bases of auctions that record their changes. */
  selectCuts: string;
  insertSolutions: string;
  insertSolutionOrders: string;
  recordAuctionedOrders: string;
  upsertTokenPrices: string;
  replaceAttempts: string;
  failAttempts: string;
}

export function auctionsStatements(schema: string): AuctionsStatements {
  const auctions = qualified(schema, AUCTIONS_TABLE);
  const auctioned = qualified(schema, AUCTIONED_ORDERS_TABLE);
  const attempts = qualified(schema, ATTEMPTS_TABLE);
  const insertOnce = <Row>(table: string, columns: ColumnSet<Row>) =>
    `INSERT INTO ${qualified(schema, table)} (${columns.names})
      SELECT ${columns.names} FROM ${columns.unnest} ON CONFLICT DO NOTHING`;

  return {
    // The arrays come out of the event's JSON here rather than as bindings: an array column
    // cannot travel through `unnest` (it would flatten). The event itself is not kept.
    insertAuctions: `INSERT INTO ${auctions} (${AUCTION_ROW_COLUMNS}, order_uids, order_executed,
        filtered_uids, filtered_reasons, prices)
      SELECT ${AUCTION_ROW_COLUMNS},
        ARRAY(SELECT o->>'uid' FROM jsonb_array_elements(x.auction->'orders') WITH ORDINALITY
          AS e(o, n) ORDER BY n),
        ARRAY(SELECT (o->>'executed')::numeric FROM jsonb_array_elements(x.auction->'orders')
          WITH ORDINALITY AS e(o, n) ORDER BY n),
        ARRAY(SELECT f->>'uid' FROM jsonb_array_elements(x.auction->'filtered') WITH ORDINALITY
          AS e(f, n) ORDER BY n),
        ARRAY(SELECT f->>'reason' FROM jsonb_array_elements(x.auction->'filtered')
          WITH ORDINALITY AS e(f, n) ORDER BY n),
        x.auction->'prices'
      FROM ${auctionColumns.unnest}
      ON CONFLICT (network, id) DO NOTHING`,

    selectCuts: `SELECT a.network, a.id, a.order_uids, a.order_executed::text[] AS order_executed,
        a.filtered_uids, a.filtered_reasons, a.prices
      FROM ${auctionKeyColumns.unnest}
      JOIN ${auctions} a ON a.network = x.network AND a.id = x.id`,

    insertSolutions: insertOnce(SOLUTIONS_TABLE, solutionColumns),
    insertSolutionOrders: insertOnce(SOLUTION_ORDERS_TABLE, solutionOrderColumns),

    // The orders an auction filtered out, and those it took in that the auction before it (by
    // id, already stored: in an earlier batch or in this one) did not: an auction of 10,000
    // orders writes (and looks up) only the few that changed. Whatever baseline an auction
    // gets, every order of every stored auction ends up recorded, so the table does not depend
    // on the order auctions arrive in.
    recordAuctionedOrders: `INSERT INTO ${auctioned} (network, uid)
      SELECT DISTINCT a.network, n.uid
      FROM ${auctionKeyColumns.unnest}
      JOIN ${auctions} a ON a.network = x.network AND a.id = x.id
      CROSS JOIN LATERAL (
        (SELECT unnest(a.order_uids) AS uid
          EXCEPT
          SELECT unnest(p.order_uids) FROM (
            SELECT b.order_uids FROM ${auctions} b
            WHERE b.network = a.network AND b.id < a.id
            ORDER BY b.id DESC LIMIT 1
          ) p)
        UNION
        SELECT unnest(a.filtered_uids)
      ) n
      ON CONFLICT DO NOTHING`,

    upsertTokenPrices: `INSERT INTO ${qualified(schema, TOKEN_PRICES_TABLE)} AS t (${tokenPriceColumns.names})
      SELECT ${tokenPriceColumns.names} FROM ${tokenPriceColumns.unnest}
      ON CONFLICT (network, token) DO UPDATE
        SET auction_id = excluded.auction_id, price = excluded.price
        WHERE excluded.auction_id > t.auction_id`,

    replaceAttempts: `INSERT INTO ${attempts} AS t (${attemptColumns.names})
      SELECT ${attemptColumns.names} FROM ${attemptColumns.unnest}
      ON CONFLICT (network, auction_id, rank) DO UPDATE SET
        tx_hash = excluded.tx_hash, submitted_at = excluded.submitted_at,
        failed_at = excluded.failed_at, failure_reason = excluded.failure_reason`,
    failAttempts: `INSERT INTO ${attempts} AS t (${attemptColumns.names})
      SELECT ${attemptColumns.names} FROM ${attemptColumns.unnest}
      ON CONFLICT (network, auction_id, rank) DO UPDATE SET
        tx_hash = COALESCE(excluded.tx_hash, t.tx_hash),
        failed_at = excluded.failed_at, failure_reason = excluded.failure_reason`,
  };
}
