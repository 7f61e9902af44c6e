/**
 * The e-mail channel's relay, a real SMTP server on 127.0.0.1: its credentials never cross an
 * unencrypted connection unless the operator allows it, and a permanent refusal (5xx) fails the
 * delivery at once where a temporary one (4xx) is retried.
 */
import { expect } from 'chai';
import { startDeliveryWorker, type DeliveryWorker } from '../../../src/delivery/worker.js';
import { startSmtpReceiver, type SmtpReceiver } from '../../support/receivers.js';
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

describe('delivery: the SMTP relay', () => {
  let t: OutboxDatabase;
  let worker: DeliveryWorker | undefined;
  let smtp: SmtpReceiver | undefined;
  const credentials = { username: 'relay-user', password: 'relay-secret' };

  beforeEach(async () => {
    t = await openOutboxDatabase();
  });

  afterEach(async () => {
    await worker?.stop();
    await smtp?.close();
    await t.close();
  });

  /** A worker sending through `smtpUrl`, the relay's credentials in it. */
  function start(smtpUrl: string, allowPlaintextAuth: boolean, maxAttempts = 5): void {
    worker = startDeliveryWorker({
      db: t.db,
      config: notificationsConfig({
        delivery: { maxAttempts },
        email: { smtpUrl, from: 'notices@batchbook.test', allowPlaintextAuth },
      }),
      logger: capturingLogger().logger,
      verified: answeredChallenges().verified,
    });
  }

  const withCredentials = (relay: SmtpReceiver) =>
    relay.url.replace('smtp://', `smtp://${credentials.username}:${credentials.password}@`);

  it('sends no credentials to a relay that offers no STARTTLS, and delivers nothing', async () => {
    smtp = await startSmtpReceiver({ auth: credentials });
    start(withCredentials(smtp), false);
    const { notice } = await enqueue(t.db, { kind: 'email', address: 'trader@example.test' });
    await waitFor(async () => (await rowOf(t.db, notice.id)).attempts >= 2, {
      description: 'two refused attempts',
    });
    const row = await rowOf(t.db, notice.id);
    expect(row.delivered_at).to.equal(null);
    // Not a refusal of the message: the relay may offer TLS later, so it is retried.
    expect(row.failed_at).to.equal(null);
    expect(row.last_error).to.match(/STARTTLS/);
    expect(smtp.logins).to.deep.equal([]);
    expect(smtp.mails).to.deep.equal([]);
  });

  it('authenticates in plaintext only when SMTP_ALLOW_PLAINTEXT_AUTH says so', async () => {
    smtp = await startSmtpReceiver({ auth: credentials });
    start(withCredentials(smtp), true);
    const { notice } = await enqueue(t.db, { kind: 'email', address: 'trader@example.test' });
    await waitFor(async () => (await rowOf(t.db, notice.id)).delivered_at !== null, {
      description: 'the delivery',
    });
    expect(smtp.logins).to.deep.equal([credentials]);
    expect(smtp.mails.map((m) => m.to)).to.deep.equal([['trader@example.test']]);
  });

  it('fails a delivery the relay refuses for good (5xx) at once, and retries a 4xx', async () => {
    smtp = await startSmtpReceiver({
      refuseRecipient: (address) =>
        address.startsWith('gone@')
          ? { code: 550, message: 'No such user' }
          : address.startsWith('busy@')
            ? { code: 451, message: 'Try again later' }
            : null,
    });
    start(smtp.url, false, 20);
    const { notice: gone } = await enqueue(t.db, { kind: 'email', address: 'gone@example.test' });
    const { notice: busy } = await enqueue(t.db, { kind: 'email', address: 'busy@example.test' });
    await waitFor(async () => (await rowOf(t.db, gone.id)).failed_at !== null, {
      description: 'the refused row to fail',
    });
    await waitFor(async () => (await rowOf(t.db, busy.id)).attempts >= 2, {
      description: 'the deferred row to be tried again',
    });
    const refused = await rowOf(t.db, gone.id);
    expect(refused.attempts).to.equal(1);
    expect(refused.last_error).to.match(/550 No such user/);
    const deferred = await rowOf(t.db, busy.id);
    expect(deferred.failed_at).to.equal(null);
    expect(deferred.last_error).to.match(/451 Try again later/);
  });
});
