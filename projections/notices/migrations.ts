/**
 * The notices read model (seed §2.6, §6): the notices of every account, what the projector must
 * remember of each placed order to derive them, and the accounts' delivery subscriptions. The
 * delivery outbox lives outside the read-model schema (./outbox.ts): a replay must not deliver
 * again, so the store migrations make it, not this.
 */
import type { Knex } from 'knex';
import { qualified } from '../sql.js';

export const NOTICES_TABLE = 'notices';
export const NOTICE_ORDERS_TABLE = 'notice_orders';
export const NOTICE_PRESIGNATURES_TABLE = 'notice_presignatures';
export const SUBSCRIPTIONS_TABLE = 'subscriptions';

export const NOTICE_TABLES = [
  NOTICES_TABLE,
  NOTICE_ORDERS_TABLE,
  NOTICE_PRESIGNATURES_TABLE,
  SUBSCRIPTIONS_TABLE,
] as const;
/** Only the API's reads use it (a replay builds it after the rows). */
export const NOTICES_BY_ACCOUNT_INDEX = 'notices_by_account';

/**
 * The predicate of an order that may still expire: the expiry scan's partial index and its
 * query must spell it identically for the planner to match them.
 */
export const MAY_EXPIRE =
  'NOT expired AND NOT filled AND NOT api_cancelled AND chain_invalidations = 0';

export async function migrateNotices(db: Knex, schema: string): Promise<void> {
  const notices = qualified(schema, NOTICES_TABLE);
  await db.raw(`
    CREATE TABLE IF NOT EXISTS ${notices} (
      -- Deterministic (src/domain/notices.ts noticeId): a replay makes the same ids.
      id text PRIMARY KEY,
      account text NOT NULL,
      network text NOT NULL,
      type text NOT NULL,
      message text NOT NULL,
      timestamp timestamptz NOT NULL,
      metadata jsonb NOT NULL
    )`);
  // GET /accounts/{account}/notifications: newest first.
  await db.raw(`CREATE INDEX IF NOT EXISTS ${NOTICES_BY_ACCOUNT_INDEX}
    ON ${notices} (account, timestamp DESC, id DESC)`);

  const orders = qualified(schema, NOTICE_ORDERS_TABLE);
  await db.raw(`
    CREATE TABLE IF NOT EXISTS ${orders} (
      network text NOT NULL,
      uid text NOT NULL,
      owner text NOT NULL,
      sell_token text NOT NULL,
      buy_token text NOT NULL,
      sell_amount numeric(78,0) NOT NULL,
      buy_amount numeric(78,0) NOT NULL,
      kind text NOT NULL,
      partially_fillable boolean NOT NULL,
      valid_to bigint NOT NULL,
      -- Sums over the canonical TradeSettled facts (a reorg's revert subtracts); sell includes
      -- the fee.
      executed_sell numeric(78,0) NOT NULL,
      executed_buy numeric(78,0) NOT NULL,
      executed_fee numeric(78,0) NOT NULL,
      -- Executed in full (src/domain/notices.ts isFilled), kept for the expiry scan's index.
      filled boolean NOT NULL,
      api_cancelled boolean NOT NULL,
      -- invalidateOrder logs on the canonical chain.
      chain_invalidations integer NOT NULL,
      -- An OrderCancelled was seen: only the first one is noticed.
      cancel_seen boolean NOT NULL,
      -- Noticed expired (at most once).
      expired boolean NOT NULL,
      -- In an insufficient-balance episode: noticed, and no auction has held the order since.
      short_of_balance boolean NOT NULL,
      -- Signed with presign, and whether a signed pre-signature of it is on the canonical chain
      -- (notice_presignatures); notices only once it is.
      presign boolean NOT NULL,
      presigned boolean NOT NULL,
      PRIMARY KEY (network, uid)
    )`);
  // Added after the table (ADD COLUMN: a read model built before keeps its rows, with no hold).
  // The winning solution (auction id, rank) whose settlement may still fill the order, and
  // until when (Unix seconds) its expiry waits for it; see ./derive-notices.ts.
  await db.raw(`ALTER TABLE ${orders}
    ADD COLUMN IF NOT EXISTS held_auction bigint,
    ADD COLUMN IF NOT EXISTS held_rank integer,
    ADD COLUMN IF NOT EXISTS held_until bigint`);
  // The orders a failed settlement releases.
  await db.raw(`CREATE INDEX IF NOT EXISTS notice_orders_held
    ON ${orders} (network, held_auction, held_rank)
    WHERE held_auction IS NOT NULL AND ${MAY_EXPIRE}`);
  // The expiry scan of each AuctionClosed: the open orders of its network whose validTo passed.
  await db.raw(`CREATE INDEX IF NOT EXISTS notice_orders_may_expire
    ON ${orders} (network, valid_to) WHERE ${MAY_EXPIRE}`);
  // The orders an auction's held orders may end the episode of.
  await db.raw(`CREATE INDEX IF NOT EXISTS notice_orders_short
    ON ${orders} (network) WHERE short_of_balance`);

  // Per UID, placed or not (a pre-signature may come first): its signed PreSignature logs on the
  // canonical chain.
  await db.raw(`
    CREATE TABLE IF NOT EXISTS ${qualified(schema, NOTICE_PRESIGNATURES_TABLE)} (
      network text NOT NULL,
      uid text NOT NULL,
      signed_logs integer NOT NULL,
      PRIMARY KEY (network, uid)
    )`);

  const subscriptions = qualified(schema, SUBSCRIPTIONS_TABLE);
  await db.raw(`
    CREATE TABLE IF NOT EXISTS ${subscriptions} (
      id text PRIMARY KEY,
      account text NOT NULL,
      -- The DeliveryChannel (src/domain/events.ts).
      channel jsonb NOT NULL,
      -- How its destination shows it wants the notices (DestinationVerification).
      verification jsonb NOT NULL,
      added_at timestamptz NOT NULL,
      -- Null until its destination answered the verification: nothing is delivered to it.
      verified_at timestamptz,
      -- Null while active.
      removed_at timestamptz
    )`);
  await db.raw(`CREATE INDEX IF NOT EXISTS subscriptions_by_account ON ${subscriptions} (account)`);
  // The Telegram chat a code is sent from finds its pending subscription by the code.
  await db.raw(`CREATE INDEX IF NOT EXISTS subscriptions_pending_telegram
    ON ${subscriptions} ((verification->>'code'))
    WHERE verification->>'method' = 'telegramCode' AND verified_at IS NULL
      AND removed_at IS NULL`);
}
