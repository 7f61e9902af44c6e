/**
 * Each channel delivers through the worker to a real local receiver, with the payload and
 * headers its receivers rely on.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { expect } from 'chai';
import { emailMessageId } from '../../../src/delivery/channels/email.js';
import type {
  ChallengeRequest,
  VerificationRequest,
} from '../../../src/subscriptions/destination-verification.js';
import { startDeliveryWorker, type DeliveryWorker } from '../../../src/delivery/worker.js';
import {
  createPushSubscriptionKeys,
  createVapidKeys,
  decryptPush,
  startPushReceiver,
  startSmtpReceiver,
  startTelegramReceiver,
  startWebhookReceiver,
  verifyVapid,
  type PushReceiver,
  type SmtpReceiver,
  type TelegramReceiver,
  type WebhookReceiver,
} from '../../support/receivers.js';
import { waitFor } from '../../support/wait.js';
import {
  answeredChallenges,
  capturingLogger,
  enqueue,
  enqueueRequest,
  notice,
  notificationsConfig,
  openOutboxDatabase,
  rowOf,
  type OutboxDatabase,
} from './fixtures.js';

describe('delivery channels', () => {
  let t: OutboxDatabase;
  let webhook: WebhookReceiver;
  let smtp: SmtpReceiver;
  let push: PushReceiver;
  let telegram: TelegramReceiver;
  let worker: DeliveryWorker;
  const vapid = createVapidKeys();
  const botToken = '123456:TEST-token_abc';
  const challenges = answeredChallenges();

  before(async () => {
    t = await openOutboxDatabase();
    [webhook, smtp, push, telegram] = await Promise.all([
      startWebhookReceiver(),
      startSmtpReceiver(),
      startPushReceiver(),
      startTelegramReceiver(),
    ]);
    worker = startDeliveryWorker({
      db: t.db,
      config: notificationsConfig({
        email: {
          smtpUrl: smtp.url,
          from: 'batchbook <notices@batchbook.test>',
          allowPlaintextAuth: false,
        },
        webPush: { ...vapid, subject: 'mailto:ops@batchbook.test' },
        telegram: { botToken, apiUrl: telegram.apiUrl },
      }),
      logger: capturingLogger().logger,
      verified: challenges.verified,
    });
  });

  after(async () => {
    await worker?.stop();
    await Promise.all([webhook?.close(), smtp?.close(), push?.close(), telegram?.close()]);
    await t?.close();
  });

  const delivered = (noticeId: string) => async () =>
    (await rowOf(t.db, noticeId)).delivered_at !== null;

  it('webhook: POSTs the notice as JSON, signed with HMAC-SHA256 of the exact body', async () => {
    const secret = 'whsec_test_secret';
    const { notice: n } = await enqueue(t.db, {
      kind: 'webhook',
      url: `${webhook.url}/hooks/a`,
      secret,
    });
    await waitFor(delivered(n.id), { description: 'webhook delivery' });

    const [request] = webhook.requests.filter((r) => r.headers['x-batchbook-notice-id'] === n.id);
    expect(request).to.not.equal(undefined);
    expect(request!.method).to.equal('POST');
    expect(request!.path).to.equal('/hooks/a');
    expect(request!.headers['content-type']).to.equal('application/json');
    expect(JSON.parse(request!.body.toString('utf8'))).to.deep.equal(n);

    const expected = createHmac('sha256', secret).update(request!.body).digest();
    const header = String(request!.headers['x-batchbook-signature']);
    expect(header).to.match(/^sha256=[0-9a-f]{64}$/);
    expect(timingSafeEqual(Buffer.from(header.slice(7), 'hex'), expected)).to.equal(true);
    // Another secret does not verify.
    const other = createHmac('sha256', 'another').update(request!.body).digest('hex');
    expect(header).to.not.equal(`sha256=${other}`);

    const row = await rowOf(t.db, n.id);
    expect(row.attempts).to.equal(1);
    expect(row.last_error).to.equal(null);
  });

  it('e-mail: one message over SMTP with the notice id as Message-ID', async () => {
    const n = notice({ type: 'order_partially_filled', message: 'Your order was partly filled.' });
    await enqueue(t.db, { kind: 'email', address: 'trader@example.test' }, n);
    await waitFor(delivered(n.id), { description: 'e-mail delivery' });

    const mails = smtp.mails.filter((m) => m.headers.get('x-batchbook-notice-id') === n.id);
    expect(mails).to.have.length(1);
    const mail = mails[0]!;
    expect(mail.to).to.deep.equal(['trader@example.test']);
    expect(mail.from).to.equal('notices@batchbook.test');
    expect(mail.headers.get('message-id')).to.equal(`<${n.id}@batchbook>`);
    expect(mail.headers.get('message-id')).to.equal(emailMessageId(n));
    expect(mail.headers.get('subject')).to.equal('Order partially filled');
    expect(mail.headers.get('from')).to.equal('batchbook <notices@batchbook.test>');
    expect(mail.text).to.contain('Your order was partly filled.');
    expect(mail.text).to.contain(`Order: ${String(n.metadata.orderId)}`);
  });

  it('web push: the notice, encrypted for the subscription and VAPID-signed', async () => {
    const browser = createPushSubscriptionKeys();
    const endpoint = push.endpoint('browser-1');
    const { notice: n } = await enqueue(t.db, { kind: 'webpush', endpoint, keys: browser.keys });
    await waitFor(delivered(n.id), { description: 'web push delivery' });

    const requests = push.requests.filter((r) => r.path === '/push/browser-1');
    expect(requests).to.have.length(1);
    const request = requests[0]!;
    expect(request.method).to.equal('POST');
    expect(request.headers['content-encoding']).to.equal('aes128gcm');
    expect(request.headers.ttl).to.equal('86400');
    const { publicKey, claims } = verifyVapid(request.headers, push.url);
    expect(publicKey).to.equal(vapid.publicKey);
    expect(claims.sub).to.equal('mailto:ops@batchbook.test');
    expect(JSON.parse(decryptPush(request.body, browser))).to.deep.equal(n);
  });

  /** What every new subscription's request carries. */
  const requested = () => {
    const subscriptionId = randomUUID();
    return {
      id: `verification-${subscriptionId}`,
      account: '0x1111111111111111111111111111111111111111' as const,
      subscriptionId,
      requestedAt: '2025-01-01T00:00:00.000Z',
    };
  };

  it('webhook: POSTs a new subscription its challenge, and reports the answer with it', async () => {
    const secret = 'whsec_verification';
    const challenged: ChallengeRequest = {
      ...requested(),
      method: 'webhookChallenge',
      challenge: 'ab'.repeat(32),
    };
    const hooked = await startWebhookReceiver({ answerChallenges: true });
    try {
      await enqueueRequest(t.db, { kind: 'webhook', url: hooked.url, secret }, challenged);
      await waitFor(delivered(challenged.id), { description: 'the challenge answered' });
      expect(challenges.answered).to.deep.include(challenged);
      const [sent] = hooked.requests;
      expect(JSON.parse(sent!.body.toString('utf8'))).to.deep.equal({
        type: 'subscription_verification',
        id: challenged.id,
        account: challenged.account,
        subscriptionId: challenged.subscriptionId,
        challenge: challenged.challenge,
        requestedAt: challenged.requestedAt,
      });
      const expected = createHmac('sha256', secret).update(sent!.body).digest('hex');
      expect(sent!.headers['x-batchbook-signature']).to.equal(`sha256=${expected}`);
    } finally {
      await hooked.close();
    }
  });

  it('webhook: an answer without the challenge fails the verification for good', async () => {
    const challenged: ChallengeRequest = {
      ...requested(),
      method: 'webhookChallenge',
      challenge: 'cd'.repeat(32),
    };
    await enqueueRequest(
      t.db,
      { kind: 'webhook', url: `${webhook.url}/unaware`, secret: 's' },
      challenged,
    );
    await waitFor(async () => (await rowOf(t.db, challenged.id)).failed_at !== null, {
      description: 'the verification to fail',
    });
    const row = await rowOf(t.db, challenged.id);
    expect(row.attempts).to.equal(1);
    expect(row.last_error).to.match(/without the challenge/);
    expect(challenges.answered.map((r) => r.id)).not.to.include(challenged.id);
  });

  it('e-mail: mails a new subscription its code, to be given back where it was asked for', async () => {
    const mailed: VerificationRequest = {
      ...requested(),
      method: 'emailCode',
      code: '0123456789ABCDEF',
    };
    await enqueueRequest(t.db, { kind: 'email', address: 'owner@example.test' }, mailed);
    await waitFor(delivered(mailed.id), { description: 'the code mailed' });
    const [mail] = smtp.mails.filter((m) => m.headers.get('x-batchbook-notice-id') === mailed.id);
    expect(mail!.to).to.deep.equal(['owner@example.test']);
    expect(mail!.headers.get('subject')).to.equal('Confirm batchbook notices at this address');
    expect(mail!.text).to.contain('0123-4567-89AB-CDEF');
    expect(mail!.text).to.contain(
      `/accounts/${mailed.account}/subscriptions/${mailed.subscriptionId}/verification`,
    );
    expect(challenges.answered.map((r) => r.id)).not.to.include(mailed.id);
  });

  it('Telegram: sendMessage to the chat through the configured API URL', async () => {
    const { notice: n } = await enqueue(t.db, { kind: 'telegram', chatId: '424242' });
    await waitFor(delivered(n.id), { description: 'Telegram delivery' });

    const calls = telegram.calls.filter((c) => c.body.chat_id === '424242');
    expect(calls).to.have.length(1);
    expect(calls[0]!.token).to.equal(botToken);
    expect(calls[0]!.method).to.equal('sendMessage');
    expect(calls[0]!.body.text).to.equal(`${n.message}\nOrder: ${String(n.metadata.orderId)}`);
    const request = telegram.requests.find((r) => r.path === `/bot${botToken}/sendMessage`);
    expect(request?.headers['content-type']).to.equal('application/json');
  });
});
