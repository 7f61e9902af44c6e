/**
 * Delivery budgets (src/delivery/budgets.ts) against real receivers: an account, a destination
 * and a destination's verification requests get no more than their budgets, the rest fail at
 * once saying which budget, and workers in several instances count the same budgets.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import knex from 'knex';
import type { NotificationsConfig } from '../../../src/config.js';
import { startDeliveryWorker, type DeliveryWorker } from '../../../src/delivery/worker.js';
import {
  startTelegramReceiver,
  startWebhookReceiver,
  type TelegramReceiver,
  type WebhookReceiver,
} from '../../support/receivers.js';
import { waitFor } from '../../support/wait.js';
import {
  answeredChallenges,
  capturingLogger,
  countWhere,
  enqueue,
  enqueueRequest,
  notice,
  notificationsConfig,
  openOutboxDatabase,
  type OutboxDatabase,
} from './fixtures.js';

type Budgets = NotificationsConfig['delivery']['budgets'];
const NONE: Budgets = {
  perAccountPerHour: 0,
  perDestinationPerHour: 0,
  verificationsPerDestinationPerDay: 0,
};

describe('delivery budgets', () => {
  let t: OutboxDatabase;
  let hook: WebhookReceiver;
  let telegram: TelegramReceiver;
  const workers: DeliveryWorker[] = [];

  beforeEach(async () => {
    t = await openOutboxDatabase();
    [hook, telegram] = await Promise.all([
      startWebhookReceiver({ answerChallenges: true }),
      startTelegramReceiver(),
    ]);
  });

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    await Promise.all([hook.close(), telegram.close()]);
    await t.close();
  });

  function worker(budgets: Partial<Budgets>, db = t.db): void {
    workers.push(
      startDeliveryWorker({
        db,
        config: notificationsConfig({
          delivery: { budgets: { ...NONE, ...budgets } },
          telegram: { botToken: 'token', apiUrl: telegram.apiUrl },
        }),
        logger: capturingLogger().logger,
        verified: answeredChallenges().verified,
      }),
    );
  }

  const account = (n: number) => `0x${String(n).repeat(40)}` as const;

  /** Waits until no row is pending; returns the rows that failed, with why. */
  async function settled(): Promise<string[]> {
    await waitFor(
      async () => (await countWhere(t.db, 'delivered_at IS NULL AND failed_at IS NULL')) === 0,
      {
        description: 'every row delivered or failed',
      },
    );
    const failed = await t
      .db('delivery.outbox')
      .whereNotNull('failed_at')
      .select('last_error', 'attempts');
    for (const row of failed) expect(row.attempts).to.equal(1);
    return failed.map((row: { last_error: string }) => row.last_error);
  }

  it('sends an account no more notices an hour than its budget, failing the rest at once', async () => {
    worker({ perAccountPerHour: 3 });
    // Five notices of one account, each to a chat of its own; one of another account.
    for (let chat = 1; chat <= 5; chat++) {
      await enqueue(
        t.db,
        { kind: 'telegram', chatId: String(chat) },
        notice({ account: account(1) }),
      );
    }
    await enqueue(t.db, { kind: 'telegram', chatId: '9' }, notice({ account: account(2) }));
    const failed = await settled();
    expect(failed).to.have.length(2);
    for (const error of failed) {
      expect(error).to.match(/^budget exceeded: account 0x1{40} had its 3 notices this hour/);
    }
    expect(telegram.calls.filter((c) => c.method === 'sendMessage')).to.have.length(4);
  });

  it('sends a destination no more notices an hour than its budget, whichever accounts name it', async () => {
    worker({ perDestinationPerHour: 2, perAccountPerHour: 100 });
    // Three accounts' notices to one webhook host, under three paths.
    for (const n of [1, 2, 3]) {
      await enqueue(
        t.db,
        { kind: 'webhook', url: `${hook.url}/${n}`, secret: 's' },
        notice({ account: account(n) }),
      );
    }
    const failed = await settled();
    expect(failed).to.have.length(1);
    expect(failed[0]).to.include('had its 2 notices this hour (DELIVERY_DESTINATION_BUDGET)');
    expect(hook.requests).to.have.length(2);
  });

  it('sends a destination a few verification requests a day, however many accounts ask', async () => {
    worker({ verificationsPerDestinationPerDay: 2 });
    for (const n of [1, 2, 3, 4]) {
      const subscriptionId = randomUUID();
      await enqueueRequest(
        t.db,
        { kind: 'webhook', url: `${hook.url}/v`, secret: 's' },
        {
          id: `verification-${subscriptionId}`,
          account: account(n) as `0x${string}`,
          subscriptionId,
          requestedAt: new Date().toISOString(),
          method: 'webhookChallenge',
          challenge: 'ab'.repeat(32),
        },
      );
    }
    const failed = await settled();
    expect(failed).to.have.length(2);
    for (const error of failed)
      expect(error).to.match(/verification requests today \(DELIVERY_VERIFICATION_BUDGET\)$/);
    expect(hook.requests).to.have.length(2);
  });

  it('counts one budget for every worker: two together send no more', async () => {
    const second = knex({ client: 'pg', connection: t.url, pool: { min: 0, max: 8 } });
    try {
      worker({ perAccountPerHour: 20 });
      worker({ perAccountPerHour: 20 }, second);
      const rows = Array.from({ length: 60 }, (_, i) => {
        const n = notice({ account: account(1) });
        return {
          notice_id: n.id,
          subscription_id: `s-${i}`,
          account: n.account,
          channel: JSON.stringify({ kind: 'telegram', chatId: String(100 + i) }),
          notice: JSON.stringify(n),
        };
      });
      await t.db.batchInsert('delivery.outbox', rows, 60);
      const failed = await settled();
      expect(failed).to.have.length(40);
      expect(await countWhere(t.db, 'delivered_at IS NOT NULL')).to.equal(20);
      expect(telegram.calls.filter((c) => c.method === 'sendMessage')).to.have.length(20);
    } finally {
      await Promise.all(workers.splice(0).map((w) => w.stop()));
      await second.destroy();
    }
  });
});
