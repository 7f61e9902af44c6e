/**
 * The stores that cannot be rebuilt from the ledger (the ledger itself, the chain indexers'
 * stores, the quote store, the id sequences, the delivery outbox) change only through these
 * steps, applied in this order, each once (./apply.ts). MIGRATIONS.md describes every table.
 *
 * A step that has landed on main is never edited, reordered or removed: databases out there
 * recorded it as applied, with the checksum of its SQL, and will not run it again. A change of
 * schema is a new step at the end, named `V<next number>__<what it does>`.
 *
 * V001–V007 are the baseline: statement for statement the DDL each store ran at every start
 * before this list existed, `IF NOT EXISTS` and guards included. A database made by an earlier
 * version (its tables there, no record of any step) is therefore adopted by running them: they
 * create whatever that version had not made yet and leave what exists as it is. Later steps run
 * exactly once, recorded in the same transaction, and need no such guards.
 */

export interface MigrationStep {
  /** `V<three digits>__<snake_case description>`, in order. */
  name: string;
  sql: string;
}

export const STORE_MIGRATIONS: readonly MigrationStep[] = [
  {
    name: 'V001__ledger',
    sql: `
CREATE TABLE IF NOT EXISTS ledger_streams (
  stream_id text PRIMARY KEY,
  revision bigint NOT NULL
);

CREATE TABLE IF NOT EXISTS ledger_events (
  transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  global_position bigserial NOT NULL,
  stream_id text NOT NULL,
  revision bigint NOT NULL,
  event_id uuid NOT NULL,
  type text NOT NULL,
  version integer NOT NULL,
  data jsonb NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}',
  recorded_at timestamptz NOT NULL DEFAULT now(),
  -- The all-stream order, and the index readers resume by.
  PRIMARY KEY (transaction_id, global_position),
  -- readStream, and a guard that the compare-and-set above can never be bypassed.
  UNIQUE (stream_id, revision),
  -- Idempotence: an event id is written at most once per stream.
  UNIQUE (stream_id, event_id)
);
`,
  },
  {
    name: 'V002__chain_indexer',
    sql: `
CREATE SCHEMA IF NOT EXISTS chain;
CREATE TABLE IF NOT EXISTS chain.indexer_cursors (
  network text PRIMARY KEY,
  block_number bigint NOT NULL,
  block_hash text NOT NULL
);
CREATE TABLE IF NOT EXISTS chain.indexer_facts (
  network text NOT NULL,
  block_number bigint NOT NULL,
  block_hash text NOT NULL,
  log_index integer NOT NULL,
  event_id text NOT NULL,
  incarnation integer NOT NULL,
  fact jsonb NOT NULL,
  PRIMARY KEY (network, block_hash, log_index)
);
CREATE INDEX IF NOT EXISTS indexer_facts_by_height
  ON chain.indexer_facts (network, block_number DESC);
CREATE TABLE IF NOT EXISTS chain.indexer_reverted_logs (
  network text NOT NULL,
  block_hash text NOT NULL,
  log_index integer NOT NULL,
  times integer NOT NULL,
  PRIMARY KEY (network, block_hash, log_index)
);
`,
  },
  {
    name: 'V003__chain_token_holders',
    sql: `
CREATE SCHEMA IF NOT EXISTS chain;
CREATE TABLE IF NOT EXISTS chain.token_cursors (
  network text NOT NULL,
  token text NOT NULL,
  block_number bigint NOT NULL,
  block_hash text NOT NULL,
  PRIMARY KEY (network, token)
);
CREATE TABLE IF NOT EXISTS chain.token_balances (
  network text NOT NULL,
  token text NOT NULL,
  holder text NOT NULL,
  -- May be negative where indexing began after the chain's first blocks (a holder that sent
  -- what it received earlier): such rows are not reported.
  balance numeric(78,0) NOT NULL,
  PRIMARY KEY (network, token, holder)
);
-- GET /{chainId}/tokens/{token}/topHolders: the largest balances of one token.
CREATE INDEX IF NOT EXISTS token_balances_by_size
  ON chain.token_balances (network, token, balance DESC);
`,
  },
  {
    name: 'V004__quote_store',
    sql: `
CREATE SCHEMA IF NOT EXISTS quote_store;
-- The quotes' ids, shared with the QuoteCreated events of the ledger.
CREATE SEQUENCE IF NOT EXISTS batchbook_quote_ids;
-- UNLOGGED: a quote waits for no WAL flush, and a crash of PostgreSQL empties the table.
CREATE UNLOGGED TABLE IF NOT EXISTS quote_store.quotes (
  network text NOT NULL,
  id bigint NOT NULL,
  sell_token text NOT NULL,
  buy_token text NOT NULL,
  kind text NOT NULL,
  expiration timestamptz NOT NULL,
  -- The whole quote: what an order linked to it embeds.
  quote jsonb NOT NULL,
  PRIMARY KEY (network, id)
);
-- An order without a quote id looks for unexpired quotes of its pair and kind.
CREATE INDEX IF NOT EXISTS quotes_by_pair
  ON quote_store.quotes (network, sell_token, buy_token, kind, expiration);
-- The sweep deletes by expiration alone.
CREATE INDEX IF NOT EXISTS quotes_by_expiration ON quote_store.quotes (expiration);
`,
  },
  {
    name: 'V005__auction_ids',
    sql: `
-- The auctions' ids: each exists before the AuctionClosed event that carries it.
CREATE SEQUENCE IF NOT EXISTS batchbook_auction_ids;
`,
  },
  {
    name: 'V006__delivery_outbox',
    sql: `
CREATE SCHEMA IF NOT EXISTS delivery;
CREATE TABLE IF NOT EXISTS delivery.outbox (
  notice_id text NOT NULL,
  subscription_id text NOT NULL,
  account text NOT NULL,
  -- The subscription's DeliveryChannel (src/domain/events.ts) when the notice was made.
  channel jsonb NOT NULL,
  -- The notice as GET /accounts/{account}/notifications shows it.
  notice jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  delivered_at timestamptz,
  -- Given up after the last attempt.
  failed_at timestamptz,
  PRIMARY KEY (notice_id, subscription_id)
);
-- A row carries a notice or a verification request (src/domain/destination-verification.ts),
-- keyed by the request's id in notice_id. The outboxes of versions before verification
-- requests gain the column here.
ALTER TABLE delivery.outbox ADD COLUMN IF NOT EXISTS verification jsonb;
ALTER TABLE delivery.outbox ALTER COLUMN notice DROP NOT NULL;
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'outbox_one_message') THEN
    ALTER TABLE delivery.outbox ADD CONSTRAINT outbox_one_message
      CHECK ((notice IS NULL) <> (verification IS NULL));
  END IF;
END $$;
CREATE INDEX IF NOT EXISTS outbox_due ON delivery.outbox (next_attempt_at)
  WHERE delivered_at IS NULL AND failed_at IS NULL;
-- A removed subscription's pending rows, found by the notices projector to stop them.
CREATE INDEX IF NOT EXISTS outbox_pending_by_subscription
  ON delivery.outbox (subscription_id) WHERE delivered_at IS NULL AND failed_at IS NULL;
`,
  },
  {
    name: 'V007__delivery_budgets',
    sql: `
CREATE SCHEMA IF NOT EXISTS delivery;
-- What each account and destination was sent per window (src/delivery/budgets.ts).
CREATE TABLE IF NOT EXISTS delivery.budgets (
  key text NOT NULL,
  window_start timestamptz NOT NULL,
  spent integer NOT NULL,
  PRIMARY KEY (key, window_start)
);
`,
  },
];
