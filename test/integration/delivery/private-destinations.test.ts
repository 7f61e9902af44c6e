/**
 * The delivery worker's defence against server-side request forgery: with private addresses
 * refused, a subscriber's URL whose host resolves to loopback (or any other non-public address)
 * gets no request at all, and its row fails at once; the Bot API (the operator's URL) is not
 * subject to it. With them allowed, the connection still goes to the address the check saw.
 *
 * The host names are `.test` names (RFC 6761: never resolvable) given to the worker through its
 * resolver, so reaching a receiver proves the socket used that resolver's answer.
 */
import { expect } from 'chai';
import { systemResolver, type Resolver } from '../../../src/delivery/destination.js';
import { startDeliveryWorker, type DeliveryWorker } from '../../../src/delivery/worker.js';
import {
  createPushSubscriptionKeys,
  createVapidKeys,
  startPushReceiver,
  startTelegramReceiver,
  startWebhookReceiver,
} from '../../support/receivers.js';
import { waitFor } from '../../support/wait.js';
import {
  answeredChallenges,
  capturingLogger,
  enqueue,
  notificationsConfig,
  openOutboxDatabase,
  rowOf,
  type OutboxDatabase,
} from './fixtures.js';

/**
 * Resolves the names in `table`, and `localhost` as the system does (the production path);
 * any other name fails as the system's resolver would.
 */
function resolverOf(table: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = (hostname: string) => {
    asked.push(hostname);
    if (hostname === 'localhost') return systemResolver(hostname);
    const addresses = table[hostname];
    if (!addresses)
      return Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }));
    return Promise.resolve(
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }) as const),
    );
  };
  return Object.assign(resolve, { asked });
}

describe('delivery to private destinations', () => {
  let t: OutboxDatabase;
  const closing: (() => Promise<void>)[] = [];

  /** A worker with web push (and Telegram, given its stand-in's URL) configured. */
  function worker(
    allowPrivateAddresses: boolean,
    resolve: Resolver,
    telegramApiUrl?: string,
  ): DeliveryWorker {
    const w = startDeliveryWorker({
      db: t.db,
      config: notificationsConfig({
        delivery: { allowPrivateAddresses, maxAttempts: 5 },
        webPush: { ...createVapidKeys(), subject: 'mailto:ops@batchbook.test' },
        ...(telegramApiUrl ? { telegram: { botToken: 'token', apiUrl: telegramApiUrl } } : {}),
      }),
      logger: capturingLogger().logger,
      random: () => 0.5,
      resolve,
      verified: answeredChallenges().verified,
    });
    closing.push(() => w.stop());
    return w;
  }

  async function started<T extends { close(): Promise<void> }>(thing: Promise<T>): Promise<T> {
    const value = await thing;
    closing.push(() => value.close());
    return value;
  }

  /** The port of a receiver's URL, to address it under another host name. */
  const portOf = (url: string) => new URL(url).port;

  beforeEach(async () => {
    t = await openOutboxDatabase();
  });

  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
    await t.close();
  });

  it('refuses a webhook whose name resolves to loopback: no request, failed at once', async () => {
    const hook = await started(startWebhookReceiver());
    const resolve = resolverOf({ 'hooks.test': ['127.0.0.1'] });
    worker(false, resolve);
    const url = `http://hooks.test:${portOf(hook.url)}/hook`;
    const { notice: n } = await enqueue(t.db, { kind: 'webhook', url, secret: 's' });

    await waitFor(async () => (await rowOf(t.db, n.id)).failed_at !== null, {
      description: 'the row to fail',
    });
    const row = await rowOf(t.db, n.id);
    expect(row.attempts).to.equal(1);
    expect(row.delivered_at).to.equal(null);
    expect(row.last_error).to.equal(
      'destination refused: hooks.test resolves to 127.0.0.1, which is loopback; notices go to ' +
        'public addresses only (DELIVERY_ALLOW_PRIVATE_HOSTS)',
    );
    expect(resolve.asked).to.deep.equal(['hooks.test']);
    expect(hook.requests).to.deep.equal([]);
  });

  it('refuses when any one address of the name is private, and IP literals and localhost too', async () => {
    const hook = await started(startWebhookReceiver());
    const push = await started(startPushReceiver());
    const port = portOf(hook.url);
    worker(
      false,
      resolverOf({
        // A public address first: the connection could still take the second.
        'mixed.test': ['93.184.216.34', '127.0.0.1'],
        'mapped.test': ['::ffff:127.0.0.1'],
        'push.test': ['10.0.0.7'],
      }),
    );
    const rows = [
      [`http://mixed.test:${port}/`, 'resolves to 127.0.0.1, which is loopback'],
      [`http://mapped.test:${port}/`, 'is loopback (IPv4-mapped)'],
      [`http://127.0.0.1:${port}/`, 'destination refused: 127.0.0.1 is loopback;'],
      [`http://[::1]:${port}/`, 'destination refused: ::1 is loopback;'],
      [`http://localhost:${port}/`, 'destination refused: localhost resolves to'],
      [`http://169.254.169.254/latest/meta-data/`, 'is link-local'],
    ] as const;
    const notices = [];
    for (const [url, reason] of rows) {
      notices.push({ ...(await enqueue(t.db, { kind: 'webhook', url, secret: 's' })), reason });
    }
    const pushed = await enqueue(t.db, {
      kind: 'webpush',
      endpoint: `https://push.test:${portOf(push.url)}/push/1`,
      keys: createPushSubscriptionKeys().keys,
    });
    notices.push({ ...pushed, reason: 'resolves to 10.0.0.7, which is private' });

    for (const { notice: n, reason } of notices) {
      await waitFor(async () => (await rowOf(t.db, n.id)).failed_at !== null, {
        description: `the row for "${reason}" to fail`,
      });
      const row = await rowOf(t.db, n.id);
      expect(row.attempts, reason).to.equal(1);
      expect(row.last_error, reason).to.include(reason);
    }
    expect(hook.requests).to.deep.equal([]);
    expect(push.requests).to.deep.equal([]);
  });

  it('retries a name that does not resolve (DNS may come back)', async () => {
    worker(false, resolverOf({}));
    const { notice: n } = await enqueue(t.db, {
      kind: 'webhook',
      url: 'https://gone.test/hook',
      secret: 's',
    });
    await waitFor(async () => (await rowOf(t.db, n.id)).attempts >= 2, {
      description: 'a second attempt',
    });
    const row = await rowOf(t.db, n.id);
    expect(row.failed_at).to.equal(null);
    expect(row.last_error).to.equal('cannot resolve gone.test: ENOTFOUND');
  });

  it('connects to the address the check saw, with the URL’s host, where private ones are allowed', async () => {
    const hook = await started(startWebhookReceiver());
    const push = await started(startPushReceiver());
    worker(true, resolverOf({ 'hooks.test': ['127.0.0.1'], 'push.test': ['127.0.0.1'] }));
    const hookUrl = `http://hooks.test:${portOf(hook.url)}/hook`;
    const { notice: n } = await enqueue(t.db, { kind: 'webhook', url: hookUrl, secret: 's' });
    const pushed = await enqueue(t.db, {
      kind: 'webpush',
      endpoint: `http://push.test:${portOf(push.url)}/push/1`,
      keys: createPushSubscriptionKeys().keys,
    });
    for (const id of [n.id, pushed.notice.id]) {
      await waitFor(async () => (await rowOf(t.db, id)).delivered_at !== null, {
        description: 'delivery through the resolved address',
      });
    }
    expect(hook.requests.map((r) => r.headers.host)).to.deep.equal([
      `hooks.test:${portOf(hook.url)}`,
    ]);
    expect(push.requests.map((r) => r.headers.host)).to.deep.equal([
      `push.test:${portOf(push.url)}`,
    ]);
  });

  it('does not hold the operator’s Bot API URL to the rule', async () => {
    const telegram = await started(startTelegramReceiver());
    worker(false, resolverOf({}), telegram.apiUrl);
    const { notice: n } = await enqueue(t.db, { kind: 'telegram', chatId: '42' });
    await waitFor(async () => (await rowOf(t.db, n.id)).delivered_at !== null, {
      description: 'the Telegram delivery',
    });
    expect(telegram.calls).to.have.length(1);
  });
});
