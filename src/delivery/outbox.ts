/**
 * The delivery worker's side of the outbox (`delivery.outbox`, created by the notices
 * projector's migration, projections/notices/outbox.ts): claim due rows, record what became of
 * each attempt. Every timestamp comes from the database's clock, the one the projector's
 * `next_attempt_at DEFAULT now()` uses, so several instances agree on what is due.
 *
 * A claim is a lease: `FOR UPDATE SKIP LOCKED` keeps two workers from taking the same row at
 * once, and moving `next_attempt_at` past the lease keeps it out of every other claim until the
 * attempt is recorded. A worker that dies mid-attempt records nothing; its lease runs out and
 * another worker retries the row (at least once).
 */
import type { Knex } from 'knex';
import type { DeliveryChannel } from '../domain/events.js';
import type { OutboxRow } from '../subscriptions/outbox-row.js';
import type { OutboxMessage } from './channel.js';

export const OUTBOX = 'delivery.outbox';

/** `last_error` holds at most this many characters. */
export const MAX_ERROR_LENGTH = 1000;

/**
 * Where a row goes, for the worker's per-destination limits: the origin of a webhook URL or
 * push endpoint (one receiver, one push service), else the channel kind (the one SMTP relay,
 * the one Bot API). (`\x3F` is `?`, which knex would take for a binding.)
 */
const DESTINATION = `(CASE channel->>'kind'
    WHEN 'webhook' THEN 'webhook ' || coalesce(substring(channel->>'url' from '^[^:/\\x3F#]+://[^/\\x3F#]*'), channel->>'url', '')
    WHEN 'webpush' THEN 'webpush ' || coalesce(substring(channel->>'endpoint' from '^[^:/\\x3F#]+://[^/\\x3F#]*'), channel->>'endpoint', '')
    ELSE coalesce(channel->>'kind', '')
  END)`;

/** A claimed row, as the worker attempts it. */
export interface ClaimedDelivery {
  noticeId: string;
  subscriptionId: string;
  account: string;
  channel: DeliveryChannel;
  message: OutboxMessage;
  /** Attempts recorded before this one. */
  attempts: number;
  /** The row's destination key (see `DESTINATION`). */
  destination: string;
}

export interface ClaimOptions {
  /** Rows to claim at most. */
  limit: number;
  /** How long the claim keeps the rows from every other claim. */
  leaseMs: number;
  /** Rows this worker holds per destination at most (claimed and not yet recorded). */
  perDestination: number;
  /** The rows this worker holds, by destination. */
  busy: ReadonlyMap<string, number>;
}

type ClaimedRecord = OutboxRow & { attempts: number; destination: string };

/**
 * Claims up to `limit` due rows, oldest first, at most `perDestination − busy` per destination;
 * destinations already at their limit are passed over, so rows behind a slow one are reached.
 */
export async function claimDue(db: Knex, options: ClaimOptions): Promise<ClaimedDelivery[]> {
  if (options.limit <= 0) return [];
  const keys = [...options.busy.keys()];
  const counts = keys.map((key) => options.busy.get(key) ?? 0);
  const saturated = keys.filter((key) => (options.busy.get(key) ?? 0) >= options.perDestination);
  const scan = Math.max(options.limit * 4, 256);
  const result = await db.raw<{ rows: ClaimedRecord[] }>(
    `WITH due AS (
       SELECT notice_id, subscription_id, next_attempt_at, created_at, ${DESTINATION} AS destination
       FROM ${OUTBOX}
       WHERE delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= now()
         AND ${DESTINATION} <> ALL(?::text[])
       ORDER BY next_attempt_at
       LIMIT ?
     ), eligible AS (
       SELECT due.notice_id, due.subscription_id, due.destination FROM (
         SELECT *, row_number() OVER (PARTITION BY destination ORDER BY next_attempt_at, created_at) AS rank
         FROM due
       ) due
       LEFT JOIN unnest(?::text[], ?::int[]) AS busy(destination, n) USING (destination)
       WHERE due.rank <= ? - coalesce(busy.n, 0)
     ), claimed AS (
       SELECT o.notice_id, o.subscription_id, eligible.destination
       FROM ${OUTBOX} o JOIN eligible USING (notice_id, subscription_id)
       WHERE o.delivered_at IS NULL AND o.failed_at IS NULL AND o.next_attempt_at <= now()
       ORDER BY o.next_attempt_at
       LIMIT ?
       FOR UPDATE OF o SKIP LOCKED
     )
     UPDATE ${OUTBOX} o SET next_attempt_at = now() + ? * interval '1 millisecond'
     FROM claimed
     WHERE o.notice_id = claimed.notice_id AND o.subscription_id = claimed.subscription_id
     RETURNING o.notice_id, o.subscription_id, o.account, o.channel, o.notice, o.verification,
       o.attempts, claimed.destination`,
    [saturated, scan, keys, counts, options.perDestination, options.limit, options.leaseMs],
  );
  return result.rows.map((row) => ({
    noticeId: row.notice_id,
    subscriptionId: row.subscription_id,
    account: row.account,
    channel: row.channel,
    // The table's check holds exactly one of the two.
    message: row.notice
      ? { kind: 'notice', notice: row.notice }
      : { kind: 'verification', request: row.verification! },
    attempts: row.attempts,
    destination: row.destination,
  }));
}

export interface RowKey {
  noticeId: string;
  subscriptionId: string;
}

export type Outcome =
  | (RowKey & { kind: 'delivered' })
  | (RowKey & {
      kind: 'failed';
      error: string;
      /** When to try again, from now; ignored when the row fails for good. */
      retryInMs: number;
      /** Give up now, whatever the attempt count. */
      permanent: boolean;
    })
  /** The attempt was abandoned (the worker stopped): due again now, no attempt counted. */
  | (RowKey & { kind: 'released' });

export function truncateError(error: string): string {
  return error.length > MAX_ERROR_LENGTH ? `${error.slice(0, MAX_ERROR_LENGTH - 1)}…` : error;
}

/**
 * Records outcomes, one statement per kind. A delivery counts its attempt and sets
 * `delivered_at`; a failure counts its attempt, keeps the error and schedules the next attempt,
 * or sets `failed_at` once `maxAttempts` attempts failed (or at once when permanent). Rows
 * already delivered or failed are left alone.
 */
export async function recordOutcomes(
  db: Knex,
  outcomes: readonly Outcome[],
  maxAttempts: number,
): Promise<void> {
  const delivered = outcomes.filter((o) => o.kind === 'delivered');
  const failed = outcomes.filter((o) => o.kind === 'failed');
  const released = outcomes.filter((o) => o.kind === 'released');
  const writes: Promise<unknown>[] = [];
  if (delivered.length > 0) {
    writes.push(
      db.raw(
        `UPDATE ${OUTBOX} o SET attempts = o.attempts + 1, delivered_at = now()
         FROM unnest(?::text[], ?::text[]) AS d(notice_id, subscription_id)
         WHERE o.notice_id = d.notice_id AND o.subscription_id = d.subscription_id
           AND o.delivered_at IS NULL`,
        [delivered.map((o) => o.noticeId), delivered.map((o) => o.subscriptionId)],
      ),
    );
  }
  if (failed.length > 0) {
    writes.push(
      db.raw(
        `UPDATE ${OUTBOX} o SET
           attempts = o.attempts + 1,
           last_error = f.error,
           next_attempt_at = CASE WHEN f.permanent OR o.attempts + 1 >= ? THEN o.next_attempt_at
             ELSE now() + f.retry_ms * interval '1 millisecond' END,
           failed_at = CASE WHEN f.permanent OR o.attempts + 1 >= ? THEN now() END
         FROM unnest(?::text[], ?::text[], ?::text[], ?::float8[], ?::bool[])
           AS f(notice_id, subscription_id, error, retry_ms, permanent)
         WHERE o.notice_id = f.notice_id AND o.subscription_id = f.subscription_id
           AND o.delivered_at IS NULL AND o.failed_at IS NULL`,
        [
          maxAttempts,
          maxAttempts,
          failed.map((o) => o.noticeId),
          failed.map((o) => o.subscriptionId),
          failed.map((o) => truncateError(o.error)),
          failed.map((o) => o.retryInMs),
          failed.map((o) => o.permanent),
        ],
      ),
    );
  }
  if (released.length > 0) {
    writes.push(
      db.raw(
        `UPDATE ${OUTBOX} o SET next_attempt_at = now()
         FROM unnest(?::text[], ?::text[]) AS r(notice_id, subscription_id)
         WHERE o.notice_id = r.notice_id AND o.subscription_id = r.subscription_id
           AND o.delivered_at IS NULL AND o.failed_at IS NULL`,
        [released.map((o) => o.noticeId), released.map((o) => o.subscriptionId)],
      ),
    );
  }
  await Promise.all(writes);
}

/** Rows not yet delivered nor given up (read through the partial index `outbox_due`). */
export async function countPending(db: Knex): Promise<number> {
  const { rows } = await db.raw<{ rows: { n: string }[] }>(
    `SELECT count(*)::text AS n FROM ${OUTBOX} WHERE delivered_at IS NULL AND failed_at IS NULL`,
  );
  return Number(rows[0]!.n);
}
