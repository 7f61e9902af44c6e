/** A fresh database with the delivery outbox, rows to put in it, and the worker's config. */
import { randomUUID } from 'node:crypto';
import knex, { type Knex } from 'knex';
import type { Logger } from 'pino';
import { createLogger } from '../../../src/logger.js';
import type { NotificationsConfig } from '../../../src/config.js';
import type { Notice } from '../../../src/delivery/channel.js';
import type {
  ChallengeRequest,
  VerificationRequest,
} from '../../../src/subscriptions/destination-verification.js';
import type { DeliveryChannel } from '../../../src/domain/events.js';
import { migratedDatabase } from '../../support/postgres.js';

export interface OutboxDatabase {
  url: string;
  db: Knex;
  close(): Promise<void>;
}

export async function openOutboxDatabase(): Promise<OutboxDatabase> {
  const url = await migratedDatabase();
  const db = knex({ client: 'pg', connection: url, pool: { min: 0, max: 8 } });
  return { url, db, close: () => db.destroy() };
}

let counter = 0;

export function notice(overrides: Partial<Notice> = {}): Notice {
  counter += 1;
  return {
    id: `notice-${counter}-${randomUUID()}`,
    account: '0x1111111111111111111111111111111111111111',
    type: 'order_filled',
    message: `Your order ${counter} was filled.`,
    timestamp: new Date(Date.UTC(2025, 0, 1, 12, 0, counter % 60)).toISOString(),
    metadata: {
      orderId: `0x${counter.toString(16).padStart(112, '0')}`,
      network: 'mainnet',
      executedAmount: '1000',
    },
    ...overrides,
  };
}

/** Inserts one outbox row, as the notices projector does; returns its notice. */
export async function enqueue(
  db: Knex,
  channel: DeliveryChannel,
  n: Notice = notice(),
  subscriptionId: string = randomUUID(),
): Promise<{ notice: Notice; subscriptionId: string }> {
  await db('delivery.outbox').insert({
    notice_id: n.id,
    subscription_id: subscriptionId,
    account: n.account,
    channel: JSON.stringify(channel),
    notice: JSON.stringify(n),
  });
  return { notice: n, subscriptionId };
}

/** Inserts a new subscription's verification request, as the notices projector does. */
export async function enqueueRequest(
  db: Knex,
  channel: DeliveryChannel,
  request: VerificationRequest,
): Promise<void> {
  await db('delivery.outbox').insert({
    notice_id: request.id,
    subscription_id: request.subscriptionId,
    account: request.account,
    channel: JSON.stringify(channel),
    verification: JSON.stringify(request),
  });
}

export interface OutboxState {
  attempts: number;
  last_error: string | null;
  delivered_at: Date | null;
  failed_at: Date | null;
  next_attempt_at: Date;
}

export async function rowOf(db: Knex, noticeId: string): Promise<OutboxState> {
  const row = (await db('delivery.outbox')
    .where({ notice_id: noticeId })
    .first('attempts', 'last_error', 'delivered_at', 'failed_at', 'next_attempt_at')) as
    OutboxState | undefined;
  if (!row) throw new Error(`no outbox row for ${noticeId}`);
  return row;
}

export async function countWhere(db: Knex, condition: string): Promise<number> {
  const { rows } = await db.raw<{ rows: { n: number }[] }>(
    `SELECT count(*)::int AS n FROM delivery.outbox WHERE ${condition}`,
  );
  return rows[0]!.n;
}

type DeliveryConfig = NotificationsConfig['delivery'];

export function notificationsConfig(
  overrides: {
    delivery?: Partial<DeliveryConfig>;
    email?: NotificationsConfig['email'];
    webPush?: NotificationsConfig['webPush'];
    telegram?: NotificationsConfig['telegram'];
  } = {},
): NotificationsConfig {
  return {
    enabled: true,
    apiKey: null,
    delivery: {
      pollIntervalMs: 20,
      maxAttempts: 5,
      backoffBaseMs: 20,
      backoffMaxMs: 200,
      webhookTimeoutMs: 2000,
      // The receivers these tests deliver to listen on 127.0.0.1.
      allowPrivateAddresses: true,
      budgets: {
        perAccountPerHour: 0,
        perDestinationPerHour: 0,
        verificationsPerDestinationPerDay: 0,
      },
      ...overrides.delivery,
    },
    email: overrides.email ?? null,
    webPush: overrides.webPush ?? null,
    telegram: overrides.telegram ?? null,
  };
}

/** The challenges webhooks answered, as the service would record them (`verified`). */
export function answeredChallenges(): {
  verified: (request: ChallengeRequest) => Promise<void>;
  answered: ChallengeRequest[];
} {
  const answered: ChallengeRequest[] = [];
  return {
    answered,
    verified: async (request) => {
      answered.push(request);
    },
  };
}

/**
 * The service's logger, keeping what it logs (as parsed JSON lines) for assertions: the fields
 * of the work running (a request's id) included.
 */
export function capturingLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('debug', {
    write(line: string) {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    },
  });
  return { logger, lines };
}
