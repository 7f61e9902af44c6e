/**
 * Delivery budgets: how many messages the service sends at most per account and per destination,
 * so that no account (however many subscriptions and orders it makes) and no one destination
 * (however many accounts name it) gets more than the operator allows.
 *
 * - notices: per account per clock hour, and per destination per clock hour;
 * - verification requests: per destination per day (UTC), so naming someone's address from any
 *   number of fresh accounts sends it a few requests a day at most.
 *
 * A destination is what a receiver is: an e-mail address (in any case), a chat, a webhook's host
 * (any path of it), a push subscription's endpoint. A message spends its budgets once, at its
 * first attempt (one that a stopped worker gave back may spend again: budgets err on the side of
 * sending less); a message over one of them is not sent and its row fails at once, saying which.
 * The counts live in `delivery.budgets`, one row per budget and window, counted under a row lock
 * by every worker of every instance alike, with the database's clock.
 */
import type { Knex } from 'knex';
import type { NotificationsConfig } from '../config.js';
import type { DeliveryChannel } from '../domain/events.js';
import type { ClaimedDelivery } from './outbox.js';

export const BUDGETS = 'delivery.budgets';

export type Budgets = NotificationsConfig['delivery']['budgets'];

/** The receiver a channel reaches, for its budget. */
export function budgetDestination(channel: DeliveryChannel): string {
  switch (channel.kind) {
    case 'webhook':
      return `webhook ${URL.canParse(channel.url) ? new URL(channel.url).host : channel.url}`;
    case 'email':
      return `email ${channel.address.toLowerCase()}`;
    case 'telegram':
      return `telegram ${channel.chatId}`;
    case 'webpush':
      return `webpush ${channel.endpoint}`;
  }
}

interface Spend {
  key: string;
  window: 'hour' | 'day';
  limit: number;
  /** Said when the message is over it. */
  over: string;
}

/** The budgets a row's message spends (those with a limit). */
function spendsOf(row: ClaimedDelivery, budgets: Budgets): Spend[] {
  const destination = budgetDestination(row.channel);
  const spends: Spend[] =
    row.message.kind === 'verification'
      ? [
          {
            key: `verifications ${destination}`,
            window: 'day',
            limit: budgets.verificationsPerDestinationPerDay,
            over: `${destination} had its ${budgets.verificationsPerDestinationPerDay} verification requests today (DELIVERY_VERIFICATION_BUDGET)`,
          },
        ]
      : [
          {
            key: `account ${row.account}`,
            window: 'hour',
            limit: budgets.perAccountPerHour,
            over: `account ${row.account} had its ${budgets.perAccountPerHour} notices this hour (DELIVERY_ACCOUNT_BUDGET)`,
          },
          {
            key: `notices ${destination}`,
            window: 'hour',
            limit: budgets.perDestinationPerHour,
            over: `${destination} had its ${budgets.perDestinationPerHour} notices this hour (DELIVERY_DESTINATION_BUDGET)`,
          },
        ];
  return spends.filter((s) => s.limit > 0);
}

/**
 * Spends the budgets of `rows` (claimed, in claim order; those attempted before spent theirs)
 * in one transaction. Returns why each row over a budget is not to be sent; the others may go.
 */
export async function spendBudgets(
  db: Knex,
  rows: readonly ClaimedDelivery[],
  budgets: Budgets,
): Promise<Map<ClaimedDelivery, string>> {
  const wanted = rows
    .filter((row) => row.attempts === 0)
    .map((row) => ({ row, spends: spendsOf(row, budgets) }))
    .filter(({ spends }) => spends.length > 0);
  const over = new Map<ClaimedDelivery, string>();
  if (wanted.length === 0) return over;
  const budgetsOf = new Map<string, Spend>();
  for (const { spends } of wanted) for (const s of spends) budgetsOf.set(s.key, s);
  // In one order for every worker: two that lock the same budgets never wait for each other.
  const keys = [...budgetsOf.keys()].sort();
  const windows = keys.map((key) => budgetsOf.get(key)!.window);

  await db.transaction(async (trx) => {
    // Created first, in a statement of their own: the locking read below then sees every
    // budget row, another worker's committed meanwhile included.
    await trx.raw(
      `INSERT INTO ${BUDGETS} (key, window_start, spent)
       SELECT key, date_trunc(window_kind, now()), 0
       FROM unnest(?::text[], ?::text[]) AS w(key, window_kind)
       ORDER BY key
       ON CONFLICT DO NOTHING`,
      [keys, windows],
    );
    const { rows: spent } = await trx.raw<{ rows: { key: string; spent: number }[] }>(
      `SELECT b.key, b.spent FROM ${BUDGETS} b
       JOIN unnest(?::text[], ?::text[]) AS w(key, window_kind)
         ON b.key = w.key AND b.window_start = date_trunc(w.window_kind, now())
       ORDER BY b.key
       FOR UPDATE OF b`,
      [keys, windows],
    );
    const left = new Map(spent.map(({ key, spent }) => [key, budgetsOf.get(key)!.limit - spent]));
    const spending = new Map<string, number>();
    for (const { row, spends } of wanted) {
      const short = spends.find((s) => left.get(s.key)! <= 0);
      if (short) {
        over.set(row, `budget exceeded: ${short.over}`);
        continue;
      }
      for (const s of spends) {
        left.set(s.key, left.get(s.key)! - 1);
        spending.set(s.key, (spending.get(s.key) ?? 0) + 1);
      }
    }
    if (spending.size === 0) return;
    const spentKeys = [...spending.keys()];
    await trx.raw(
      `UPDATE ${BUDGETS} b SET spent = b.spent + s.n
       FROM unnest(?::text[], ?::text[], ?::int[]) AS s(key, window_kind, n)
       WHERE b.key = s.key AND b.window_start = date_trunc(s.window_kind, now())`,
      [
        spentKeys,
        spentKeys.map((key) => budgetsOf.get(key)!.window),
        spentKeys.map((key) => spending.get(key)!),
      ],
    );
  });
  return over;
}

/** Forgets the windows that began over two days ago: none of them is counted in any more. */
export async function forgetSpentBudgets(db: Knex): Promise<void> {
  await db.raw(`DELETE FROM ${BUDGETS} WHERE window_start < now() - interval '2 days'`);
}
