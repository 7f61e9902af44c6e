/**
 * The delivery outbox: one row per (notice, subscription) to deliver, and one per verification
 * request a new subscription's destination is sent, written by the notices projector in the
 * same transaction as the notice (or the subscription), read and updated by src/delivery/.
 *
 * It lives in its own schema, outside the read models: `npm run replay` rebuilds the notices
 * but must not deliver them again. A replayed notice keeps its id, so its rows are already here
 * (`ON CONFLICT DO NOTHING`); what was delivered stays delivered.
 */
import type { Knex } from 'knex';

export const OUTBOX_SCHEMA = 'delivery';
export const OUTBOX_TABLE = `${OUTBOX_SCHEMA}.outbox`;

export async function migrateOutbox(db: Knex): Promise<void> {
  await db.raw(`CREATE SCHEMA IF NOT EXISTS ${OUTBOX_SCHEMA}`);
  await db.raw(`
    CREATE TABLE IF NOT EXISTS ${OUTBOX_TABLE} (
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
    )`);
  // A row carries a notice or a verification request (src/domain/destination-verification.ts),
  // keyed by the request's id in `notice_id`.
  await db.raw(`ALTER TABLE ${OUTBOX_TABLE} ADD COLUMN IF NOT EXISTS verification jsonb`);
  await db.raw(`ALTER TABLE ${OUTBOX_TABLE} ALTER COLUMN notice DROP NOT NULL`);
  await db.raw(`DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'outbox_one_message') THEN
      ALTER TABLE ${OUTBOX_TABLE} ADD CONSTRAINT outbox_one_message
        CHECK ((notice IS NULL) <> (verification IS NULL));
    END IF;
  END $$`);
  await db.raw(`CREATE INDEX IF NOT EXISTS outbox_due ON ${OUTBOX_TABLE} (next_attempt_at)
    WHERE delivered_at IS NULL AND failed_at IS NULL`);
  // What each account and destination was sent per window (src/delivery/budgets.ts).
  await db.raw(`
    CREATE TABLE IF NOT EXISTS ${OUTBOX_SCHEMA}.budgets (
      key text NOT NULL,
      window_start timestamptz NOT NULL,
      spent integer NOT NULL,
      PRIMARY KEY (key, window_start)
    )`);
  // A removed subscription's pending rows, found by the notices projector to stop them.
  await db.raw(`CREATE INDEX IF NOT EXISTS outbox_pending_by_subscription
    ON ${OUTBOX_TABLE} (subscription_id) WHERE delivered_at IS NULL AND failed_at IS NULL`);
}
