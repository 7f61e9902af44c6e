/**
 * The service runs the delivery worker: a row in the outbox its notices projector created is
 * delivered, and stopping the service stops the worker. End to end: an account subscribes a
 * webhook through the API, its order is cancelled, and the notice arrives signed with the
 * subscription's secret.
 */
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import knex, { type Knex } from 'knex';
import { fundedWallet } from '../../support/owners.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import { CHAIN_ID, signCancellation, signOrder } from '../../support/signing.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/receivers.js';
import { waitFor } from '../../support/wait.js';
import { enqueue, rowOf } from './fixtures.js';

describe('delivery in the service', () => {
  let service: TestService;
  let db: Knex;
  let hook: WebhookReceiver;

  before(async () => {
    service = await startTestService({
      env: { DELIVERY_POLL_INTERVAL_MS: '20', NOTIFICATIONS_API_KEY: 'delivery-key' },
    });
    db = knex({ client: 'pg', connection: service.databaseUrl, pool: { min: 0, max: 2 } });
    hook = await startWebhookReceiver();
  });

  after(async () => {
    await service?.stop();
    await db?.destroy();
    await hook?.close();
  });

  it('delivers the outbox rows', async () => {
    const { notice } = await enqueue(db, { kind: 'webhook', url: hook.url, secret: 's' });
    await waitFor(async () => (await rowOf(db, notice.id)).delivered_at !== null, {
      description: 'delivery by the service',
    });
    expect(hook.accepted.get(notice.id)).to.equal(1);
  });

  it('delivers a notice to a webhook subscribed through the API, signed with its secret', async () => {
    const owner = await fundedWallet();
    const subscribed = await http<{ id: string; channel: { secret: string } }>(
      'POST',
      `${service.url}/accounts/${owner.address}/subscriptions`,
      { channel: { kind: 'webhook', url: hook.url } },
      { 'x-api-key': 'delivery-key' },
    );
    expect(subscribed.status, subscribed.text).to.equal(201);
    const order = await signOrder(owner, CHAIN_ID.devnet);
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

    const delivered = () =>
      hook.requests.find((r) => {
        const notice = JSON.parse(r.body.toString()) as {
          type: string;
          metadata: { orderId: string };
        };
        return notice.type === 'order_cancelled' && notice.metadata.orderId === order.uid;
      });
    await waitFor(() => delivered() !== undefined, { description: 'the cancellation notice' });
    const request = delivered()!;
    const expected = createHmac('sha256', subscribed.body.channel.secret)
      .update(request.body)
      .digest('hex');
    expect(request.headers['x-batchbook-signature']).to.equal(`sha256=${expected}`);
    const listed = await http<{ id: string }[]>(
      'GET',
      `${service.url}/accounts/${owner.address}/notifications`,
    );
    expect(listed.body.map((n) => n.id)).to.include(request.headers['x-batchbook-notice-id']);
  });

  it('stops the deliveries still to come of a subscription once it is removed', async () => {
    const owner = await fundedWallet();
    const down = await startWebhookReceiver({ respond: () => ({ status: 503 }) });
    try {
      const subscriptions = `${service.url}/accounts/${owner.address}/subscriptions`;
      const key = { 'x-api-key': 'delivery-key' };
      const channel = { kind: 'webhook', url: down.url };
      const subscribed = await http<{ id: string }>('POST', subscriptions, { channel }, key);
      expect(subscribed.status, subscribed.text).to.equal(201);
      const order = await signOrder(owner, CHAIN_ID.devnet);
      expect((await http('POST', `${service.devnet}/api/v1/orders`, order.body)).status).to.equal(
        201,
      );
      const signed = await signCancellation(owner, CHAIN_ID.devnet, order.uid);
      const cancel = await http('DELETE', `${service.devnet}/api/v1/orders/${order.uid}`, signed);
      expect(cancel.status).to.equal(200);
      const pending = () =>
        db('delivery.outbox').where({ subscription_id: subscribed.body.id }).first<OutboxState>();
      // The receiver refuses: the row waits for its next attempt.
      await waitFor(async () => ((await pending())?.attempts ?? 0) >= 1, {
        description: 'a first, failed attempt',
      });

      const removed = await http(
        'DELETE',
        `${subscriptions}/${subscribed.body.id}`,
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
