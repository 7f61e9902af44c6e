-- What the stores outside the read models were on a database made before the store
-- migrations (commit 993d94b): each store's start-up DDL, in the order the start ran it,
-- with its values spelled out (the outbox's from the projection thread, the auction ids'
-- sequence from the autopilot's start). Kept as it was: the upgrade test builds a database
-- from it. Never edit it.

-- src/ledger/postgres-schema.ts
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

-- src/chain/indexer-store.ts migrateIndexerStore
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

-- src/chain/token-holders-store.ts migrateTokenHoldersStore
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

-- src/commands/quote-store.ts migrateQuoteStore
CREATE SCHEMA IF NOT EXISTS quote_store;
CREATE SEQUENCE IF NOT EXISTS batchbook_quote_ids;
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

-- src/postgres/sequence.ts createSequence(pool, 'batchbook_auction_ids')
CREATE SEQUENCE IF NOT EXISTS batchbook_auction_ids;

-- projections/notices/outbox.ts migrateOutbox
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
CREATE TABLE IF NOT EXISTS delivery.budgets (
  key text NOT NULL,
  window_start timestamptz NOT NULL,
  spent integer NOT NULL,
  PRIMARY KEY (key, window_start)
);
CREATE INDEX IF NOT EXISTS outbox_pending_by_subscription
  ON delivery.outbox (subscription_id) WHERE delivered_at IS NULL AND failed_at IS NULL;
