/**
 * The delivery worker against real local receivers: retries with backoff, giving up, channels
 * that are down or hang, restarts and crashed workers, and two workers at once.
 */
import { expect } from 'chai';
import knex from 'knex';
import { claimDue } from '../../../src/delivery/outbox.js';
import { startDeliveryWorker, type DeliveryWorker } from '../../../src/delivery/worker.js';
import {
  createPushSubscriptionKeys,
  createVapidKeys,
  startPushReceiver,
  startSmtpReceiver,
  startTelegramReceiver,
  startWebhookReceiver,
  type SmtpReceiver,
} from '../../support/receivers.js';
import { waitFor, withDeadline } from '../../support/wait.js';
import {
  answeredChallenges,
  capturingLogger,
  countWhere,
  enqueue,
  notificationsConfig,
  openOutboxDatabase,
  rowOf,
  type OutboxDatabase,
} from './fixtures.js';

describe('delivery worker', () => {
  let t: OutboxDatabase;
  const workers: DeliveryWorker[] = [];
  const cleanups: (() => Promise<void>)[] = [];

  /** A worker with the fixtures' small poll interval and backoff; stopped after each test. */
  function worker(
    options: Partial<Parameters<typeof startDeliveryWorker>[0]> = {},
  ): DeliveryWorker & { lines: Record<string, unknown>[] } {
    const { logger, lines } = capturingLogger();
    const w = startDeliveryWorker({
      db: t.db,
      config: notificationsConfig(),
      logger,
      random: () => 0.5,
      verified: answeredChallenges().verified,
      ...options,
    });
    workers.push(w);
    return Object.assign(w, { lines });
  }

  /** Starts something that is closed after the test. */
  async function started<T extends { close(): Promise<void> }>(thing: Promise<T>): Promise<T> {
    const value = await thing;
    cleanups.push(() => value.close());
    return value;
  }

  beforeEach(async () => {
    t = await openOutboxDatabase();
  });

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    await Promise.all(cleanups.splice(0).map((close) => close()));
    await t.close();
  });

  const deliveredCount = () => countWhere(t.db, 'delivered_at IS NOT NULL');

  it('retries with exponential backoff until the receiver takes it, then delivers once', async () => {
    const hook = await started(startWebhookReceiver({ failFirst: 3 }));
    const w = worker({
      config: notificationsConfig({ delivery: { backoffBaseMs: 60, backoffMaxMs: 10_000 } }),
    });
    const { notice: n } = await enqueue(t.db, { kind: 'webhook', url: hook.url, secret: 's' });
    await waitFor(async () => (await rowOf(t.db, n.id)).delivered_at !== null, {
      description: 'delivery after three failures',
    });

    const row = await rowOf(t.db, n.id);
    expect(row.attempts).to.equal(4);
    expect(row.failed_at).to.equal(null);
    expect(row.last_error).to.equal('webhook answered 503: not yet');
    expect(hook.requests).to.have.length(4);
    expect(hook.accepted.get(n.id)).to.equal(1);
    // Jitter fixed at its middle: 60, 120, 240 ms after the 1st, 2nd and 3rd failure.
    const gaps = hook.requests.slice(1).map((r, i) => r.at - hook.requests[i]!.at);
    expect(gaps[0]).to.be.at.least(60);
    expect(gaps[1]).to.be.at.least(120);
    expect(gaps[2]).to.be.at.least(240);

    const warnings = w.lines.filter((l) => l.level === 40 && l.noticeId === n.id);
    expect(warnings).to.have.length(3);
    expect(warnings[0]).to.include({ msg: 'delivery failed; will retry', retryInMs: 60 });
    // No further request arrives once it is delivered.
    expect(await countWhere(t.db, 'delivered_at IS NULL')).to.equal(0);
  });

  it('gives up after maxAttempts and records failed_at with the last error', async () => {
    const hook = await started(
      startWebhookReceiver({ respond: () => ({ status: 500, body: 'broken' }) }),
    );
    const w = worker({ config: notificationsConfig({ delivery: { maxAttempts: 3 } }) });
    const { notice: n } = await enqueue(t.db, { kind: 'webhook', url: hook.url, secret: 's' });
    await waitFor(async () => (await rowOf(t.db, n.id)).failed_at !== null, {
      description: 'the row to fail',
    });
    const row = await rowOf(t.db, n.id);
    expect(row.attempts).to.equal(3);
    expect(row.delivered_at).to.equal(null);
    expect(row.last_error).to.equal('webhook answered 500: broken');
    expect(hook.requests).to.have.length(3);
    const gaveUp = w.lines.filter((l) => l.msg === 'delivery failed; giving up');
    expect(gaveUp.map((l) => l.noticeId)).to.deep.equal([n.id]);
    expect(gaveUp[0]).to.include({ level: 40, failed: true, attempts: 3, channel: 'webhook' });
  });

  it('fails a web push at once when the push service says the subscription is gone', async () => {
    const push = await started(startPushReceiver({ respond: () => ({ status: 410 }) }));
    worker({
      config: notificationsConfig({
        webPush: { ...createVapidKeys(), subject: 'mailto:ops@batchbook.test' },
      }),
    });
    const { notice: n } = await enqueue(t.db, {
      kind: 'webpush',
      endpoint: push.endpoint('gone'),
      keys: createPushSubscriptionKeys().keys,
    });
    await waitFor(async () => (await rowOf(t.db, n.id)).failed_at !== null, {
      description: 'the push row to fail',
    });
    const row = await rowOf(t.db, n.id);
    expect(row.attempts).to.equal(1);
    expect(row.last_error).to.match(/^push subscription gone \(push service answered 410/);
    expect(push.requests).to.have.length(1);
  });

  it('fails rows of a channel that is not configured, saying so', async () => {
    worker();
    const { notice: mail } = await enqueue(t.db, { kind: 'email', address: 'a@example.test' });
    const { notice: chat } = await enqueue(t.db, { kind: 'telegram', chatId: '1' });
    await waitFor(async () => (await countWhere(t.db, 'failed_at IS NOT NULL')) === 2, {
      description: 'both rows to fail',
    });
    expect((await rowOf(t.db, mail.id)).last_error).to.equal(
      'e-mail delivery is not configured (SMTP_URL is unset)',
    );
    expect((await rowOf(t.db, mail.id)).attempts).to.equal(1);
    expect((await rowOf(t.db, chat.id)).last_error).to.match(/TELEGRAM_BOT_TOKEN is unset/);
  });

  it("Telegram: ok:false fails the attempt, and a 429's retry_after is honoured", async () => {
    const times: number[] = [];
    const telegram = await started(
      startTelegramReceiver({
        respond: (_, index) => {
          times.push(Date.now());
          if (index === 0) {
            return {
              status: 429,
              body: {
                ok: false,
                error_code: 429,
                description: 'Too Many Requests: retry after 1',
                parameters: { retry_after: 1 },
              },
            };
          }
          if (index === 1) return { status: 200, body: { ok: false, description: 'odd' } };
          return undefined;
        },
      }),
    );
    worker({
      config: notificationsConfig({
        telegram: { botToken: 'secret-token', apiUrl: telegram.apiUrl },
      }),
    });
    const { notice: n } = await enqueue(t.db, { kind: 'telegram', chatId: '77' });
    await waitFor(async () => (await rowOf(t.db, n.id)).delivered_at !== null, {
      description: 'Telegram delivery',
    });
    expect(telegram.calls).to.have.length(3);
    // The base backoff is 20 ms: only retry_after explains the wait.
    expect(times[1]! - times[0]!).to.be.at.least(1000);
    const row = await rowOf(t.db, n.id);
    expect(row.attempts).to.equal(3);
    expect(row.last_error).to.equal('Telegram answered 200: odd');
  });

  it('a receiver that is down does not delay the rows of other channels', async () => {
    const down = await started(startWebhookReceiver());
    await down.down();
    const telegram = await started(startTelegramReceiver());
    worker({
      config: notificationsConfig({ telegram: { botToken: 't', apiUrl: telegram.apiUrl } }),
    });
    for (let i = 0; i < 100; i += 1) {
      await enqueue(t.db, { kind: 'webhook', url: down.url, secret: 's' });
    }
    const { notice: n } = await enqueue(t.db, { kind: 'telegram', chatId: '9' });
    await waitFor(async () => (await rowOf(t.db, n.id)).delivered_at !== null, {
      timeoutMs: 1500,
      description: 'the Telegram row, behind 100 rows to a webhook that is down',
    });
    expect(
      await countWhere(t.db, `channel->>'kind' = 'webhook' AND delivered_at IS NOT NULL`),
    ).to.equal(0);
  });

  it('a receiver that hangs holds only its own rows, until their deadline', async () => {
    const hanging = await started(startWebhookReceiver({ respond: () => 'hang' }));
    const healthy = await started(startWebhookReceiver());
    const smtp: SmtpReceiver = await started(startSmtpReceiver());
    worker({
      config: notificationsConfig({
        delivery: { webhookTimeoutMs: 20_000 },
        email: { smtpUrl: smtp.url, from: 'notices@batchbook.test', allowPlaintextAuth: false },
      }),
      concurrency: 32,
      perDestination: 8,
    });
    // More rows than the worker has slots, all to the hanging receiver, ahead of the others.
    for (let i = 0; i < 100; i += 1) {
      await enqueue(t.db, { kind: 'webhook', url: `${hanging.url}/slow`, secret: 's' });
    }
    await waitFor(() => hanging.requests.length >= 8, { description: 'the hanging requests' });
    const { notice: mail } = await enqueue(t.db, { kind: 'email', address: 'x@example.test' });
    const { notice: hook } = await enqueue(t.db, {
      kind: 'webhook',
      url: healthy.url,
      secret: 's',
    });
    await waitFor(
      async () =>
        (await rowOf(t.db, mail.id)).delivered_at !== null &&
        (await rowOf(t.db, hook.id)).delivered_at !== null,
      { timeoutMs: 3000, description: 'the e-mail and the other webhook, past the hanging one' },
    );
    // The hanging receiver got no more than its share of attempts in flight.
    expect(hanging.requests).to.have.length(8);
  });

  it('abandons attempts past their deadline and retries them', async () => {
    const hook = await started(
      startWebhookReceiver({ respond: (_, index) => (index === 0 ? 'hang' : { status: 200 }) }),
    );
    worker({ config: notificationsConfig({ delivery: { webhookTimeoutMs: 200 } }) });
    const { notice: n } = await enqueue(t.db, { kind: 'webhook', url: hook.url, secret: 's' });
    await waitFor(async () => (await rowOf(t.db, n.id)).delivered_at !== null, {
      description: 'delivery after a timeout',
    });
    const row = await rowOf(t.db, n.id);
    expect(row.attempts).to.equal(2);
    expect(row.last_error).to.equal('no answer within 200 ms');
  });

  it('loses nothing across a restart: rows pending or in flight at the stop are delivered', async () => {
    let hang = true;
    const hook = await started(
      startWebhookReceiver({ respond: () => (hang ? 'hang' : { status: 200 }) }),
    );
    const config = notificationsConfig({ delivery: { webhookTimeoutMs: 30_000 } });
    const first = worker({ config, stopGraceMs: 50 });
    const ids: string[] = [];
    for (let i = 0; i < 40; i += 1) {
      ids.push((await enqueue(t.db, { kind: 'webhook', url: hook.url, secret: 's' })).notice.id);
    }
    // 16 attempts hang (the per-destination limit), the rest wait in the outbox.
    await waitFor(() => hook.requests.length >= 16, { description: 'attempts in flight' });
    await withDeadline(first.stop(), 2000, 'stopping with attempts in flight');
    // The abandoned attempts are due again at once, not counted, not waiting for their lease.
    expect(await countWhere(t.db, 'attempts = 0 AND next_attempt_at <= now()')).to.equal(40);

    hang = false;
    worker({ config });
    await waitFor(async () => (await deliveredCount()) === 40, {
      description: 'every row delivered by the second worker',
    });
    for (const id of ids) expect(hook.accepted.get(id)).to.equal(1);
  });

  it("retries a crashed worker's rows once its lease runs out", async () => {
    const hook = await started(startWebhookReceiver());
    for (let i = 0; i < 5; i += 1) {
      await enqueue(t.db, { kind: 'webhook', url: hook.url, secret: 's' });
    }
    // A worker claims the rows and dies before recording anything.
    const claimed = await claimDue(t.db, {
      limit: 10,
      leaseMs: 500,
      perDestination: 10,
      busy: new Map(),
    });
    expect(claimed).to.have.length(5);
    const crashedAt = Date.now();
    worker();
    await waitFor(async () => (await deliveredCount()) === 5, {
      description: 'the rows after the lease',
    });
    expect(Date.now() - crashedAt).to.be.at.least(500);
    expect(hook.requests).to.have.length(5);
  });

  it('two workers at once never deliver a row twice', async () => {
    const hook = await started(startWebhookReceiver());
    const second = knex({ client: 'pg', connection: t.url, pool: { min: 0, max: 8 } });
    cleanups.push(() => second.destroy());
    const rows = Array.from({ length: 600 }, (_, i) => ({
      notice_id: `n-${i}`,
      subscription_id: `s-${i % 3}`,
      account: '0x1111111111111111111111111111111111111111',
      channel: JSON.stringify({ kind: 'webhook', url: hook.url, secret: 's' }),
      notice: JSON.stringify({
        id: `n-${i}`,
        account: '0x1111111111111111111111111111111111111111',
        type: 'order_filled',
        message: 'filled',
        timestamp: new Date(0).toISOString(),
        metadata: {},
      }),
    }));
    worker({ concurrency: 16, perDestination: 16 });
    worker({ db: second, concurrency: 16, perDestination: 16 });
    await t.db.batchInsert('delivery.outbox', rows, 200);
    await waitFor(async () => (await deliveredCount()) === 600, {
      timeoutMs: 20_000,
      description: 'every row delivered',
    });
    expect(hook.requests).to.have.length(600);
    for (const row of rows) expect(hook.accepted.get(row.notice_id)).to.equal(1);
    expect(await countWhere(t.db, 'attempts <> 1')).to.equal(0);
  });
});

describe('delivery worker stop', () => {
  it('stops promptly while a receiver hangs', async () => {
    const t = await openOutboxDatabase();
    const hook = await startWebhookReceiver({ respond: () => 'hang' });
    try {
      const w = startDeliveryWorker({
        db: t.db,
        config: notificationsConfig({ delivery: { webhookTimeoutMs: 60_000 } }),
        logger: capturingLogger().logger,
        stopGraceMs: 100,
        verified: answeredChallenges().verified,
      });
      await enqueue(t.db, { kind: 'webhook', url: hook.url, secret: 's' });
      await waitFor(() => hook.requests.length === 1, { description: 'the hanging attempt' });
      await withDeadline(w.stop(), 1000, 'stop');
      await withDeadline(w.stop(), 100, 'a second stop');
    } finally {
      await hook.close();
      await t.close();
    }
  });
});
