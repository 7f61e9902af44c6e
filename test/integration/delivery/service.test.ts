/**
 * The service runs the delivery worker: a row in the outbox its notices projector created is
 * delivered, and stopping the service stops the worker. End to end: an account subscribes
 * destinations through the API, each shows it wants the notices (a webhook answers its
 * challenge, a Telegram chat sends the bot its code, an e-mail's code is given back) or is sent
 * nothing but that request, and the account's order is cancelled.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Wallet } from 'ethers';
import knex, { type Knex } from 'knex';
import { fundedWallet } from '../../support/owners.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import { CHAIN_ID, signCancellation, signOrder } from '../../support/signing.js';
import {
  challengeOf,
  startSmtpReceiver,
  startTelegramReceiver,
  startWebhookReceiver,
  type SmtpReceiver,
  type TelegramReceiver,
  type WebhookReceiver,
} from '../../support/receivers.js';
import { waitFor } from '../../support/wait.js';
import { enqueue, rowOf } from './fixtures.js';

interface Subscribed {
  id: string;
  channel: { secret?: string };
  verification: { status: string; code?: string };
}

describe('delivery in the service', () => {
  let service: TestService;
  let db: Knex;
  let hook: WebhookReceiver;
  let smtp: SmtpReceiver;
  let telegram: TelegramReceiver;
  const key = { 'x-api-key': 'delivery-key' };

  before(async () => {
    [hook, smtp, telegram] = await Promise.all([
      startWebhookReceiver({ answerChallenges: true }),
      startSmtpReceiver(),
      startTelegramReceiver(),
    ]);
    service = await startTestService({
      env: {
        DELIVERY_POLL_INTERVAL_MS: '20',
        NOTIFICATIONS_API_KEY: 'delivery-key',
        SMTP_URL: smtp.url,
        TELEGRAM_BOT_TOKEN: '4242:bot',
        TELEGRAM_API_URL: telegram.apiUrl,
      },
    });
    db = knex({ client: 'pg', connection: service.databaseUrl, pool: { min: 0, max: 2 } });
  });

  after(async () => {
    await service?.stop();
    await db?.destroy();
    await Promise.all([hook?.close(), smtp?.close(), telegram?.close()]);
  });

  const subscriptions = (owner: Wallet) => `${service.url}/accounts/${owner.address}/subscriptions`;

  async function subscribe(owner: Wallet, channel: object): Promise<Subscribed> {
    const response = await http<Subscribed>('POST', subscriptions(owner), { channel }, key);
    expect(response.status, response.text).to.equal(201);
    return response.body;
  }

  /** Waits until the subscription's destination has shown it wants the notices. */
  async function verified(owner: Wallet, id: string): Promise<void> {
    await waitFor(
      async () => {
        const listed = await http<Subscribed[]>('GET', subscriptions(owner), undefined, key);
        return listed.body.some((s) => s.id === id && s.verification.status === 'verified');
      },
      { description: `subscription ${id} verified` },
    );
  }

  let distinct = 0;
  /** Places an order of `owner` (a new one each time) and cancels it: one `order_cancelled` notice. */
  async function cancelledOrder(owner: Wallet): Promise<string> {
    const order = await signOrder(owner, CHAIN_ID.devnet, {
      sellAmount: String(10n ** 18n + BigInt(++distinct)),
    });
    expect((await http('POST', `${service.devnet}/api/v1/orders`, order.body)).status).to.equal(
      201,
    );
    const cancellation = await signCancellation(owner, CHAIN_ID.devnet, order.uid);
    const cancelled = await http(
      'DELETE',
      `${service.devnet}/api/v1/orders/${order.uid}`,
      cancellation,
    );
    expect(cancelled.status).to.equal(200);
    return order.uid;
  }

  /** The owner's notice of the cancelled order, once the notices projector made it. */
  async function noticeOf(owner: Wallet, uid: string): Promise<{ id: string }> {
    let found: { id: string } | undefined;
    await waitFor(
      async () => {
        const listed = await http<{ id: string; metadata: { orderId: string } }[]>(
          'GET',
          `${service.url}/accounts/${owner.address}/notifications`,
        );
        found = listed.body.find((n) => n.metadata.orderId === uid);
        return found !== undefined;
      },
      { description: 'the cancellation notice' },
    );
    return found!;
  }

  it('delivers the outbox rows', async () => {
    const { notice } = await enqueue(db, { kind: 'webhook', url: hook.url, secret: 's' });
    await waitFor(async () => (await rowOf(db, notice.id)).delivered_at !== null, {
      description: 'delivery by the service',
    });
    expect(hook.accepted.get(notice.id)).to.equal(1);
  });

  it('delivers a notice to a webhook subscribed through the API, signed with its secret', async () => {
    const owner = await fundedWallet();
    const subscribed = await subscribe(owner, { kind: 'webhook', url: hook.url });
    expect(subscribed.verification.status).to.equal('pending');
    // The receiver answers its challenge: the worker records the subscription verified.
    await verified(owner, subscribed.id);
    const notice = await noticeOf(owner, await cancelledOrder(owner));

    const delivered = () =>
      hook.requests.find((r) => r.headers['x-batchbook-notice-id'] === notice.id);
    await waitFor(() => delivered() !== undefined, { description: 'the cancellation notice' });
    const request = delivered()!;
    const expected = createHmac('sha256', subscribed.channel.secret!)
      .update(request.body)
      .digest('hex');
    expect(request.headers['x-batchbook-signature']).to.equal(`sha256=${expected}`);
  });

  it('sends a destination nothing but its verification until it shows it wants the notices', async () => {
    // Any account can name any address, URL or chat; these never answer.
    const owner = await fundedWallet();
    const outsiders = [1, 2, 3].map((n) => `outsider-${n}-${randomUUID()}@example.com`);
    const unaware = await startWebhookReceiver();
    try {
      const mails: Subscribed[] = [];
      for (const address of outsiders)
        mails.push(await subscribe(owner, { kind: 'email', address }));
      const chatId = String(700_000 + Math.floor(Math.random() * 100_000));
      const [hooked, chat] = [
        await subscribe(owner, { kind: 'webhook', url: unaware.url }),
        await subscribe(owner, { kind: 'telegram', chatId }),
      ];
      const notice = await noticeOf(owner, await cancelledOrder(owner));
      const settled = async (subscriptionId: string) =>
        (await db('delivery.outbox')
          .where({ subscription_id: subscriptionId })
          .whereNull('delivered_at')
          .whereNull('failed_at')
          .first()) === undefined;
      await waitFor(
        async () =>
          (await Promise.all([...mails, hooked].map((m) => settled(m.id)))).every(Boolean),
        { description: 'the verification requests sent' },
      );

      // The notice was queued for none of them: each got its verification request alone.
      const queued = await db('delivery.outbox').where({ notice_id: notice.id });
      expect(queued).to.deep.equal([]);
      for (const address of outsiders) {
        const received = smtp.mails.filter((m) => m.to.includes(address));
        expect(received.map((m) => m.headers.get('subject'))).to.deep.equal([
          'Confirm batchbook notices at this address',
        ]);
      }
      expect(unaware.requests.map((r) => challengeOf(r) !== null)).to.deep.equal([true]);
      const hookRow = await db('delivery.outbox').where({ subscription_id: hooked.id }).first();
      expect(hookRow.last_error).to.match(/without the challenge/);
      expect(telegram.calls.filter((c) => c.body.chat_id === chatId)).to.deep.equal([]);
      expect(chat.verification.status).to.equal('pending');

      // The one reader who gives the code back gets the notices made from then on.
      const mail = smtp.mails.find((m) => m.to.includes(outsiders[0]!))!;
      const code = /\b(?:[0-9A-Z]{4}-){3}[0-9A-Z]{4}\b/.exec(mail.text)![0];
      const confirmed = await http('POST', `${subscriptions(owner)}/${mails[0]!.id}/verification`, {
        code,
      });
      expect(confirmed.status, confirmed.text).to.equal(200);
      const next = await noticeOf(owner, await cancelledOrder(owner));
      await waitFor(
        () => smtp.mails.some((m) => m.headers.get('x-batchbook-notice-id') === next.id),
        { description: 'the next notice mailed to the confirmed address' },
      );
      const noticeMails = smtp.mails.filter(
        (m) => m.headers.get('x-batchbook-notice-id') === next.id,
      );
      expect(noticeMails.map((m) => m.to)).to.deep.equal([[outsiders[0]]]);
    } finally {
      await unaware.close();
    }
  });

  it('verifies a Telegram chat by the code it sends the bot, then delivers there', async () => {
    const owner = await fundedWallet();
    const chatId = 800_000 + Math.floor(Math.random() * 100_000);
    const chat = await subscribe(owner, { kind: 'telegram', chatId: String(chatId) });
    const code = chat.verification.code!;
    const sentTo = (id: number) =>
      telegram.calls.filter(
        (c) => c.method === 'sendMessage' && String(c.body.chat_id) === `${id}`,
      );
    // The code sent from another chat verifies nothing; from the chat subscribed, it does.
    telegram.send({ id: chatId + 1 }, `/start ${code}`);
    telegram.send({ id: chatId }, `/start ${code}`);
    await verified(owner, chat.id);
    await waitFor(() => sentTo(chatId).length > 0, { description: 'the bot’s confirmation' });
    expect(sentTo(chatId)[0]!.body.text).to.match(/^Confirmed/);
    expect(sentTo(chatId + 1)).to.deep.equal([]);

    const uid = await cancelledOrder(owner);
    await waitFor(() => sentTo(chatId).some((c) => c.body.text.includes(uid)), {
      description: 'the notice sent to the chat',
    });
  });

  it('stops the deliveries still to come of a subscription once it is removed', async () => {
    const owner = await fundedWallet();
    // It took the notices once, then went down.
    const down = await startWebhookReceiver({
      answerChallenges: true,
      respond: () => ({ status: 503 }),
    });
    try {
      const subscribed = await subscribe(owner, { kind: 'webhook', url: down.url });
      await verified(owner, subscribed.id);
      await cancelledOrder(owner);
      const pending = () =>
        db('delivery.outbox')
          .where({ subscription_id: subscribed.id })
          .whereNotNull('notice')
          .first<OutboxState>();
      // The receiver refuses: the row waits for its next attempt.
      await waitFor(async () => ((await pending())?.attempts ?? 0) >= 1, {
        description: 'a first, failed attempt',
      });

      const removed = await http(
        'DELETE',
        `${subscriptions(owner)}/${subscribed.id}`,
        undefined,
        key,
      );
      expect(removed.status).to.equal(200);
      await waitFor(async () => (await pending())?.failed_at !== null, {
        description: 'the pending row to stop with its subscription',
      });
      const row = (await pending())!;
      expect(row.last_error).to.equal('the subscription was removed');
      expect(row.delivered_at).to.equal(null);
    } finally {
      await down.close();
    }
  });
});

interface OutboxState {
  attempts: number;
  failed_at: Date | null;
  delivered_at: Date | null;
  last_error: string | null;
}
