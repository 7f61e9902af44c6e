/**
 * Faults (issue 7, item 2): the service's PostgreSQL goes down under steady load and comes back
 * on the same port and data directory, while the service (a child process) keeps running.
 * While it is down every request answers promptly with 503 `DatabaseUnavailable`; once it is
 * back, the same process accepts and serves orders again, the projectors catch up from the
 * ledger, every leader lock and LISTEN connection is back (once each), and the chain indexer,
 * the autopilot and the delivery worker work again.
 */
import { expect } from 'chai';
import type { Wallet } from 'ethers';
import { sharedTestChain } from '../../support/chain.js';
import { openLedgerAudit, type LedgerAudit } from '../../support/ledger-audit.js';
import { fundedWallet } from '../../support/owners.js';
import { startPrivatePostgres, type PrivatePostgres } from '../../support/private-postgres.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/receivers.js';
import { http } from '../../support/service.js';
import { startServiceProcess, type ServiceProcess } from '../../support/service-process.js';
import { CHAIN_ID, signCancellation, signOrder } from '../../support/signing.js';
import { waitFor } from '../../support/wait.js';
import { startLoad, type Exchange, type Load } from './load.js';

const API_KEY = 'faults-key';
const DEADLINE_MS = 5_000;
/** How long the outage lasts, counted in client exchanges (about 2 s). */
const OUTAGE_EXCHANGES = 100;

interface LogEntry {
  time: number;
  msg: string;
  projector?: string;
  component?: string;
}

describe('faults: PostgreSQL restart under load', function () {
  this.timeout(90_000);
  let postgres: PrivatePostgres | undefined;
  let service: ServiceProcess | undefined;
  let audit: LedgerAudit | undefined;
  let hook: WebhookReceiver | undefined;
  let load: Load | undefined;
  let owners: Wallet[];

  before(async () => {
    owners = [await fundedWallet(), await fundedWallet(), await fundedWallet()];
    postgres = await startPrivatePostgres();
    hook = await startWebhookReceiver({ answerChallenges: true });
    service = await startServiceProcess({
      databaseUrl: postgres.url,
      env: {
        // The autopilot's interval stays an hour: it cut nothing at start-up (no orders yet), so
        // an auction appears only if the autopilot steps again as soon as it retakes its lock.
        // No solver that could settle on the shared chain.
        BUILTIN_SOLVER: 'false',
        DELIVERY_POLL_INTERVAL_MS: '50',
        NOTIFICATIONS_API_KEY: API_KEY,
      },
    });
    audit = await openLedgerAudit(postgres.url);
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed' && service) console.log(service.log().slice(-6000));
  });

  after(async () => {
    await load?.stop();
    await service?.stop();
    await audit?.close();
    await hook?.close();
    await postgres?.destroy();
  });

  const auctionId = async () => {
    const response = await http<{ id: number }>('GET', `${service!.devnet}/api/v1/auction`);
    return response.status === 200 ? response.body.id : null;
  };
  const accepted = (since: number) =>
    load!.exchanges.filter((e) => e.kind === 'post order' && e.status === 201 && e.start > since)
      .length;
  const unavailable = (e: Exchange) => e.status === 503 && e.errorType === 'DatabaseUnavailable';
  const describeExchanges = (exchanges: readonly Exchange[]) =>
    exchanges.map((e) => `${e.kind} ${e.status ?? e.noAnswer} ${e.errorType ?? ''}`).join('\n');

  /** Per projector or leader loop, how often it failed to take its lock between `from` and `to`. */
  const lockRetries = (log: string, from: number, to: number) => {
    const counts = new Map<string, number>();
    for (const line of log.split('\n').filter((l) => l.startsWith('{'))) {
      const entry = JSON.parse(line) as LogEntry;
      if (entry.time < from || entry.time > to) continue;
      const loop =
        entry.msg === 'projection batch failed; retrying'
          ? entry.projector
          : entry.msg === 'leadership failed; retrying'
            ? entry.component
            : undefined;
      if (loop) counts.set(loop, (counts.get(loop) ?? 0) + 1);
    }
    return counts;
  };

  it('answers 503 while it is down and recovers everything once it is back', async () => {
    const pid = service!.pid;
    const subscriber = owners[0]!;
    const subscribed = await http(
      'POST',
      `${service!.url}/accounts/${subscriber.address}/subscriptions`,
      { channel: { kind: 'webhook', url: hook!.url } },
      { 'x-api-key': API_KEY },
    );
    expect(subscribed.status, subscribed.text).to.equal(201);
    // Its receiver answers the challenge: notices go to it from then on.
    await waitFor(
      async () => {
        const listed = await http<{ verification: { status: string } }[]>(
          'GET',
          `${service!.url}/accounts/${subscriber.address}/subscriptions`,
          undefined,
          { 'x-api-key': API_KEY },
        );
        return listed.body[0]?.verification.status === 'verified';
      },
      { description: 'the webhook verified' },
    );

    load = startLoad({
      baseUrl: service!.devnet,
      owners,
      clients: 3,
      deadlineMs: DEADLINE_MS,
    });
    await waitFor(() => accepted(0) >= 20, { timeoutMs: 20_000, description: '20 orders' });
    expect(await auctionId(), 'an auction before the outage').to.equal(null);
    const sessions = await audit!.standingSessions();

    await postgres!.stop();
    const down = Date.now();
    await waitFor(() => load!.exchanges.filter((e) => e.start > down).length >= OUTAGE_EXCHANGES, {
      timeoutMs: 20_000,
      description: `${OUTAGE_EXCHANGES} exchanges while PostgreSQL is down`,
    });
    // The token routes answer the outage in their own shape.
    const holders = await http(
      'GET',
      `${service!.url}/31337/tokens/0x${'11'.repeat(20)}/topHolders`,
    );
    expect(holders.status).to.equal(503);
    expect(holders.body).to.deep.equal({ message: 'the database is unavailable; retry later' });
    const restarting = Date.now();
    await postgres!.start();
    const up = Date.now();

    await waitFor(() => accepted(up) >= 20, {
      timeoutMs: 30_000,
      description: '20 orders accepted after PostgreSQL is back',
    });
    await load.stop();

    // The same process served throughout: nothing crashed it. Nor did it spin: each projector
    // and leader loop retried its lock with a backoff, not as fast as connections were refused.
    expect(service!.pid).to.equal(pid);
    const outageSeconds = (restarting - down) / 1000;
    for (const [loop, retries] of lockRetries(service!.log(), down, restarting)) {
      expect(retries, `${loop} retries in ${outageSeconds} s`).to.be.at.most(10 + outageSeconds);
    }

    const exchanges = load.exchanges;
    const hung = exchanges.filter((e) => e.status === null);
    expect(describeExchanges(hung), 'unanswered within the deadline').to.equal('');
    const outage = exchanges.filter((e) => e.start > down && e.end < restarting);
    expect(outage.length).to.be.at.least(OUTAGE_EXCHANGES / 2);
    expect(
      describeExchanges(outage.filter((e) => !unavailable(e))),
      'answers while PostgreSQL was down',
    ).to.equal('');
    // An order answered 201 once PostgreSQL was going down may have been answered when its
    // read-your-writes wait gave up: until the projector is back, reading it may find nothing.
    const lateAccepts = new Set(
      exchanges
        .filter((e) => e.kind === 'post order' && e.status === 201 && e.end > down)
        .map((e) => e.uid),
    );
    const unexpected = exchanges.filter(
      (e) =>
        !unavailable(e) &&
        (e.status === null || e.status >= 300) &&
        !(e.kind === 'get order' && e.status === 404 && lateAccepts.has(e.uid)),
    );
    expect(describeExchanges(unexpected), 'answers other than success or 503').to.equal('');

    // The projectors followed the ledger through the outage: caught up, one row per order.
    await audit!.projectionsCaughtUp(20_000);
    const placed = await audit!.placedPerUid();
    const model = await audit!.ordersReadModel();
    expect(model.rows).to.equal(placed.size);
    expect([...model.uids].sort()).to.deep.equal([...placed.keys()].sort());

    // Every order answered 201 is in the ledger once and readable; a refused one at most once.
    for (const order of load.accepted) expect(placed.get(order.uid), order.uid).to.equal(1);
    for (const order of load.posted) expect(placed.get(order.uid) ?? 0).to.be.at.most(1);
    for (const order of load.accepted) {
      const read = await http('GET', `${service!.devnet}/api/v1/orders/${order.uid}`);
      expect(read.status, order.uid).to.equal(200);
    }

    // Every leader lock is held again and every LISTEN connection is back, each once.
    let standing: string[] = [];
    await waitFor(
      async () => (standing = await audit!.standingSessions()).join() === sessions.join(),
      { timeoutMs: 15_000, description: 'the leader and LISTEN sessions' },
    ).catch((error: unknown) => {
      expect(standing, String(error)).to.deep.equal(sessions);
    });

    // The autopilot leads again and cuts an auction of the open orders at once.
    await waitFor(async () => (await auctionId()) !== null, {
      timeoutMs: 15_000,
      description: 'an auction cut after the outage',
    });

    // The chain indexer follows the chain again.
    const chain = await sharedTestChain();
    await chain.mine(2);
    const head = await chain.provider.getBlockNumber();
    await waitFor(async () => ((await audit!.indexerCursor('devnet')) ?? -1) >= head, {
      timeoutMs: 15_000,
      description: `the indexer at block ${head}`,
    });

    // The delivery worker delivers a notice of an order cancelled after the outage.
    const order = await signOrder(subscriber, CHAIN_ID.devnet, { sellAmount: '12345' });
    const posted = await http('POST', `${service!.devnet}/api/v1/orders`, order.body);
    expect(posted.status, posted.text).to.equal(201);
    const cancellation = await signCancellation(subscriber, CHAIN_ID.devnet, order.uid);
    const cancelled = await http(
      'DELETE',
      `${service!.devnet}/api/v1/orders/${order.uid}`,
      cancellation,
    );
    expect(cancelled.status, cancelled.text).to.equal(200);
    await waitFor(
      () =>
        hook!.requests.some((r) => {
          const notice = JSON.parse(r.body.toString()) as {
            type: string;
            metadata: { orderId: string };
          };
          return notice.type === 'order_cancelled' && notice.metadata.orderId === order.uid;
        }),
      { timeoutMs: 15_000, description: 'the cancellation notice' },
    );
    expect(service!.pid).to.equal(pid);
  });
});
