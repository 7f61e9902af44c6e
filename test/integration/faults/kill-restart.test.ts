/**
 * Faults (issue 7, item 2): the service is killed with SIGKILL while clients submit orders at
 * full speed, twice, and started again on the same database. Nothing a client was told is lost
 * or doubled: every order answered 201 is in the ledger exactly once and readable, an order left
 * without an answer is there at most once (and a retry settles it), and the projectors resume
 * from their checkpoints without gaps or duplicates.
 */
import { expect } from 'chai';
import type { Wallet } from 'ethers';
import { openLedgerAudit, type LedgerAudit } from '../../support/ledger-audit.js';
import { fundedWallet } from '../../support/owners.js';
import { freshDatabase } from '../../support/postgres.js';
import { startServiceProcess, type ServiceProcess } from '../../support/service-process.js';
import { CHAIN_ID, signOrder, type SignedOrder } from '../../support/signing.js';

const OWNERS = 5;
const ORDERS_PER_OWNER = 36;
const CONCURRENCY = 8;
/** Kill the service when this many orders have been accepted (in total). */
const KILL_AFTER_CREATED = [35, 110];
const REQUEST_DEADLINE_MS = 15_000;

type Outcome = { status: number; text: string } | { noAnswer: string };

describe('faults: kill -9 during sustained order submission', function () {
  this.timeout(90_000);
  let service: ServiceProcess | undefined;
  let audit: LedgerAudit | undefined;
  let databaseUrl: string;
  let orders: SignedOrder[];

  before(async () => {
    databaseUrl = await freshDatabase();
    const owners: Wallet[] = [];
    for (let i = 0; i < OWNERS; i++) owners.push(await fundedWallet());
    orders = [];
    for (let n = 0; n < ORDERS_PER_OWNER; n++) {
      for (const owner of owners) {
        const sellAmount = String(10n ** 18n + BigInt(n));
        orders.push(await signOrder(owner, CHAIN_ID.devnet, { sellAmount }));
      }
    }
    service = await startServiceProcess({
      databaseUrl,
      // Auctions stay off (see service-process.ts); no solver may settle on the shared chain.
      env: { BUILTIN_SOLVER: 'false' },
    });
    audit = await openLedgerAudit(databaseUrl);
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed' && service) console.log(service.log().slice(-6000));
  });

  after(async () => {
    await service?.stop();
    await audit?.close();
  });

  const post = async (order: SignedOrder): Promise<Outcome> => {
    try {
      const response = await fetch(`${service!.devnet}/api/v1/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(order.body),
        signal: AbortSignal.timeout(REQUEST_DEADLINE_MS),
      });
      return { status: response.status, text: await response.text() };
    } catch (error) {
      return { noAnswer: String((error as Error).cause ?? error) };
    }
  };

  it('keeps every accepted order exactly once and resumes the projections', async () => {
    const outcomes = new Map<string, Outcome>();
    const kills = [...KILL_AFTER_CREATED];
    const pids = [service!.pid];
    let created = 0;
    // Set while the service is being killed and restarted: workers wait before their next order.
    let restarting: Promise<void> | null = null;
    const killAndRestart = async () => {
      await service!.kill();
      await service!.restart();
      pids.push(service!.pid);
      restarting = null;
    };

    const queue = [...orders];
    const worker = async () => {
      for (let order = queue.shift(); order; order = queue.shift()) {
        if (restarting) await restarting;
        const outcome = await post(order);
        outcomes.set(order.uid, outcome);
        if ('status' in outcome && outcome.status === 201) created += 1;
        if (kills.length > 0 && created >= kills[0]! && !restarting) {
          kills.shift();
          restarting = killAndRestart();
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    if (restarting) await restarting;
    expect(kills, 'kills left').to.deep.equal([]);
    expect(new Set(pids).size, 'a new process after each kill').to.equal(
      KILL_AFTER_CREATED.length + 1,
    );

    const accepted = orders.filter((o) => {
      const outcome = outcomes.get(o.uid)!;
      return 'status' in outcome && outcome.status === 201;
    });
    const unanswered = orders.filter((o) => 'noAnswer' in outcomes.get(o.uid)!);
    const refused = orders.filter((o) => !accepted.includes(o) && !unanswered.includes(o));
    expect(
      refused.map((o) => outcomes.get(o.uid)),
      'answers other than 201',
    ).to.deep.equal([]);
    // Only requests in flight at a kill go unanswered.
    expect(unanswered.length).to.be.at.most(CONCURRENCY * KILL_AFTER_CREATED.length);

    const placed = await audit!.placedPerUid();
    for (const order of accepted) expect(placed.get(order.uid), order.uid).to.equal(1);
    for (const order of unanswered) expect(placed.get(order.uid) ?? 0).to.be.at.most(1);

    // A client retries what got no answer: accepted now, or already in from the first attempt.
    for (const order of unanswered) {
      const retry = await post(order);
      const known = placed.get(order.uid) === 1;
      expect(retry, order.uid).to.have.property('status', known ? 400 : 201);
      if (known) expect((retry as { text: string }).text).to.include('"DuplicatedOrder"');
    }
    const final = await audit!.placedPerUid();
    expect([...final.keys()].sort()).to.deep.equal(orders.map((o) => o.uid).sort());
    expect(
      [...final.values()].every((n) => n === 1),
      'one OrderPlaced per UID',
    ).to.equal(true);

    for (const order of orders) {
      const response = await fetch(`${service!.devnet}/api/v1/orders/${order.uid}`);
      expect(response.status, order.uid).to.equal(200);
    }

    await audit!.projectionsCaughtUp(20_000);
    const model = await audit!.ordersReadModel();
    expect(model.rows, 'one read-model row per OrderPlaced').to.equal(final.size);
    expect([...model.uids].sort()).to.deep.equal([...final.keys()].sort());
  });
});
