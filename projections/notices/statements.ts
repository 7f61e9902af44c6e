/**
 * The notices projector's SQL: one read of the per-order state per batch, one of the
 * subscriptions when the batch made notices or names subscriptions, and one statement per table
 * written, each taking all of its rows at once (see ../columns.ts).
 */
import { ColumnSet } from '../columns.js';
import { qualified } from '../sql.js';
import type { LoadPlan } from './load-plan.js';
import {
  MAY_EXPIRE,
  NOTICE_ORDERS_TABLE,
  NOTICE_PRESIGNATURES_TABLE,
  NOTICES_TABLE,
  SUBSCRIPTIONS_TABLE,
} from './migrations.js';
import type { OutboxRow } from '../../src/subscriptions/outbox-row.js';
import { OUTBOX_TABLE } from './outbox.js';
import type { NoticeOrderRow, NoticeRow, PresignatureRow, SubscriptionRow } from './rows.js';

export const orderColumns = new ColumnSet<NoticeOrderRow>([
  ['network', 'text'],
  ['uid', 'text'],
  ['owner', 'text'],
  ['sell_token', 'text'],
  ['buy_token', 'text'],
  ['sell_amount', 'numeric'],
  ['buy_amount', 'numeric'],
  ['kind', 'text'],
  ['partially_fillable', 'boolean'],
  ['valid_to', 'bigint'],
  ['executed_sell', 'numeric'],
  ['executed_buy', 'numeric'],
  ['executed_fee', 'numeric'],
  ['filled', 'boolean'],
  ['api_cancelled', 'boolean'],
  ['chain_invalidations', 'integer'],
  ['cancel_seen', 'boolean'],
  ['expired', 'boolean'],
  ['short_of_balance', 'boolean'],
  ['held_auction', 'bigint'],
  ['held_rank', 'integer'],
  ['held_until', 'bigint'],
  ['presign', 'boolean'],
  ['presigned', 'boolean'],
]);

export const presignatureColumns = new ColumnSet<PresignatureRow>([
  ['network', 'text'],
  ['uid', 'text'],
  ['signed_logs', 'integer'],
]);

/** What a batch may change of an order once it is placed. */
const MUTABLE: readonly (keyof NoticeOrderRow)[] = [
  'executed_sell',
  'executed_buy',
  'executed_fee',
  'filled',
  'api_cancelled',
  'chain_invalidations',
  'cancel_seen',
  'expired',
  'short_of_balance',
  'held_auction',
  'held_rank',
  'held_until',
  'presigned',
];

export const noticeColumns = new ColumnSet<NoticeRow>([
  ['id', 'text'],
  ['account', 'text'],
  ['network', 'text'],
  ['type', 'text'],
  ['message', 'text'],
  ['timestamp', 'timestamptz'],
  ['metadata', 'jsonb'],
]);

export const subscriptionColumns = new ColumnSet<SubscriptionRow>([
  ['id', 'text'],
  ['account', 'text'],
  ['channel', 'jsonb'],
  ['verification', 'jsonb'],
  ['added_at', 'timestamptz'],
  ['verified_at', 'timestamptz'],
  ['removed_at', 'timestamptz'],
]);

export const verifiedColumns = new ColumnSet<{ id: string; verified_at: string }>([
  ['id', 'text'],
  ['verified_at', 'timestamptz'],
]);

export const removalColumns = new ColumnSet<{ id: string; removed_at: string }>([
  ['id', 'text'],
  ['removed_at', 'timestamptz'],
]);

export const outboxColumns = new ColumnSet<OutboxRow>([
  ['notice_id', 'text'],
  ['subscription_id', 'text'],
  ['account', 'text'],
  ['channel', 'jsonb'],
  ['notice', 'jsonb'],
  ['verification', 'jsonb'],
]);

const keyColumns = new ColumnSet<LoadPlan['keys'][number]>([
  ['network', 'text'],
  ['uid', 'text'],
]);
const clockColumns = new ColumnSet<LoadPlan['clocks'][number]>([
  ['network', 'text'],
  ['cut', 'bigint'],
]);
const failureColumns = new ColumnSet<LoadPlan['failures'][number]>([
  ['network', 'text'],
  ['auction', 'bigint'],
  ['rank', 'integer'],
]);
const valueColumns = new ColumnSet<{ value: string }>([['value', 'text']]);

/** The bindings of `loadOrders`. */
export function loadBindings(plan: LoadPlan): string[] {
  return [
    ...keyColumns.bindings(plan.keys),
    ...clockColumns.bindings(plan.clocks),
    ...failureColumns.bindings(plan.failures),
  ];
}

/** The bindings of `loadPresignatures`. */
export const presignatureBindings = (plan: LoadPlan): string[] =>
  keyColumns.bindings(plan.presignatures);

/** The bindings of `loadSubscriptions`: one text array each. */
export function subscriptionBindings(load: { accounts: string[]; ids: string[] }): string[] {
  const array = (values: string[]) => valueColumns.bindings(values.map((value) => ({ value })))[0]!;
  return [array(load.accounts), array(load.ids)];
}

export interface NoticesStatements {
  loadOrders: string;
  upsertOrders: string;
  loadPresignatures: string;
  upsertPresignatures: string;
  insertNotices: string;
  loadSubscriptions: string;
  insertSubscriptions: string;
  verifySubscriptions: string;
  removeSubscriptions: string;
  insertOutbox: string;
  failRemovedOutbox: string;
}

export function noticesStatements(schema: string): NoticesStatements {
  const orders = qualified(schema, NOTICE_ORDERS_TABLE);
  const subscriptions = qualified(schema, SUBSCRIPTIONS_TABLE);
  const o = orderColumns;
  // Amounts as text: a bigint never passes through a JS number.
  const selected = `network, uid, owner, sell_token, buy_token, sell_amount::text AS sell_amount,
    buy_amount::text AS buy_amount, kind, partially_fillable, valid_to,
    executed_sell::text AS executed_sell, executed_buy::text AS executed_buy,
    executed_fee::text AS executed_fee, filled, api_cancelled, chain_invalidations, cancel_seen,
    expired, short_of_balance, held_auction, held_rank, held_until, presign, presigned`;
  return {
    // The orders the batch's events name; per network with an auction in the batch, the
    // orders in an insufficient-balance episode and those that may expire by its latest cut;
    // and the open orders the batch's failed settlements hold.
    // An order may come more than once (UNION ALL: no sort or hash over every column here);
    // `deriveNotices` keeps the first.
    loadOrders: `WITH keys AS (SELECT * FROM ${keyColumns.unnest}),
        clocks AS (SELECT * FROM ${clockColumns.unnest}),
        failures AS (SELECT * FROM ${failureColumns.unnest})
      SELECT ${selected} FROM ${orders}
        WHERE (network, uid) IN (SELECT network, uid FROM keys)
      UNION ALL
      SELECT ${selected} FROM ${orders}
        WHERE short_of_balance AND network IN (SELECT network FROM clocks)
      UNION ALL
      SELECT e.* FROM clocks c CROSS JOIN LATERAL (
        SELECT ${selected} FROM ${orders}
        WHERE network = c.network AND valid_to < c.cut AND ${MAY_EXPIRE}
      ) e
      UNION ALL
      SELECT ${selected} FROM ${orders}
        WHERE held_auction IS NOT NULL AND ${MAY_EXPIRE}
          AND (network, held_auction, held_rank) IN
            (SELECT network, auction, rank FROM failures)`,
    upsertOrders: `INSERT INTO ${orders} (${o.names})
      SELECT ${o.names} FROM ${o.unnest}
      ON CONFLICT (network, uid) DO UPDATE SET
        ${MUTABLE.map((c) => `${c} = excluded.${c}`).join(', ')}`,
    loadPresignatures: `SELECT network, uid, signed_logs
      FROM ${qualified(schema, NOTICE_PRESIGNATURES_TABLE)}
      WHERE (network, uid) IN (SELECT network, uid FROM ${keyColumns.unnest})`,
    upsertPresignatures: `INSERT INTO ${qualified(schema, NOTICE_PRESIGNATURES_TABLE)}
        (${presignatureColumns.names})
      SELECT ${presignatureColumns.names} FROM ${presignatureColumns.unnest}
      ON CONFLICT (network, uid) DO UPDATE SET signed_logs = excluded.signed_logs`,
    // A notice already there (a trade log recorded again after a reorg) stays, and is not
    // delivered again: only the ids returned get outbox rows.
    insertNotices: `INSERT INTO ${qualified(schema, NOTICES_TABLE)} (${noticeColumns.names})
      SELECT ${noticeColumns.names} FROM ${noticeColumns.unnest}
      ON CONFLICT (id) DO NOTHING
      RETURNING id`,
    loadSubscriptions: `SELECT id, account, channel, removed_at IS NOT NULL AS removed,
        verified_at IS NOT NULL AS verified
      FROM ${subscriptions}
      WHERE account = ANY(?::text[]) OR id = ANY(?::text[])`,
    insertSubscriptions: `INSERT INTO ${subscriptions} (${subscriptionColumns.names})
      SELECT ${subscriptionColumns.names} FROM ${subscriptionColumns.unnest}
      ON CONFLICT (id) DO NOTHING`,
    verifySubscriptions: `UPDATE ${subscriptions} AS s SET verified_at = x.verified_at
      FROM ${verifiedColumns.unnest}
      WHERE s.id = x.id AND s.verified_at IS NULL`,
    removeSubscriptions: `UPDATE ${subscriptions} AS s SET removed_at = x.removed_at
      FROM ${removalColumns.unnest}
      WHERE s.id = x.id AND s.removed_at IS NULL`,
    // The outbox outlives replays: what a replay derives again is already there.
    insertOutbox: `INSERT INTO ${OUTBOX_TABLE} (${outboxColumns.names})
      SELECT ${outboxColumns.names} FROM ${outboxColumns.unnest}
      ON CONFLICT DO NOTHING`,
    // A removed channel's deliveries still to come stop with it (one in flight finishes). On a
    // replay the rows are already settled: nothing changes.
    failRemovedOutbox: `UPDATE ${OUTBOX_TABLE} AS o
      SET failed_at = now(), last_error = 'the subscription was removed'
      FROM ${removalColumns.unnest}
      WHERE o.subscription_id = x.id AND o.delivered_at IS NULL AND o.failed_at IS NULL`,
  };
}
