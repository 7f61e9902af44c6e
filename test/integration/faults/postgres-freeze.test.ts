/**
 * Faults: the service's PostgreSQL freezes (SIGSTOP to every process of its cluster): it still
 * accepts connections and never answers. With short deadlines on its connections the service
 * (in process) answers the requests that need the database with 503 `DatabaseUnavailable` in
 * bounded time, over the connections it had open (their statements time out, and they are
 * thrown away) and over new ones (which never open); requests that need no database still
 * answer. Once the server thaws (SIGCONT) the same service reads and accepts orders again by
 * itself.
 */
import { expect } from 'chai';
import type { Wallet } from 'ethers';
import { fundedWallet } from '../../support/owners.js';
import { startPrivatePostgres, type PrivatePostgres } from '../../support/private-postgres.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import { CHAIN_ID, signOrder, type SignedOrder } from '../../support/signing.js';
import { waitFor, withDeadline } from '../../support/wait.js';

const DEADLINES = { connectMs: 2_000, queryMs: 2_000 };
/**
 * The longest a request may take while the server is frozen: a connection wait and a statement,
 * plus the group commit's queue in front of an append, plus slack for a loaded machine.
 */
const ANSWER_BOUND_MS = 8_000;

type ErrorBody = { errorType?: string; description?: string };

describe('faults: a frozen PostgreSQL', function () {
  this.timeout(60_000);
  let postgres: PrivatePostgres | undefined;
  let service: TestService | undefined;
  let owner: Wallet;

  before(async () => {
    owner = await fundedWallet();
    postgres = await startPrivatePostgres();
    service = await startTestService({
      databaseUrl: postgres.url,
      postgresDeadlines: DEADLINES,
    });
  });

  after(async () => {
    // Never leave a stopped cluster behind, whatever failed: thaw before anything else.
    await postgres?.thaw();
    await service?.stop();
    await postgres?.destroy();
  });

  /** One request, its answer and how long it took; a hang fails the test. */
  const timed = async (method: string, path: string, body?: unknown) => {
    const began = Date.now();
    const response = await withDeadline(
      http<ErrorBody | string>(method, `${service!.devnet}${path}`, body),
      4 * ANSWER_BOUND_MS,
      `${method} ${path}`,
    );
    return { ...response, ms: Date.now() - began };
  };
  const place = (order: SignedOrder) => timed('POST', '/api/v1/orders', order.body);
  const read = (uid: string) => timed('GET', `/api/v1/orders/${uid}`);
  const version = () => timed('GET', '/api/v1/version');
  const expectUnavailable = (answer: Awaited<ReturnType<typeof timed>>, what: string) => {
    expect(answer.status, `${what}: ${answer.text}`).to.equal(503);
    expect((answer.body as ErrorBody).errorType, what).to.equal('DatabaseUnavailable');
    expect(answer.ms, `${what}: answered after`).to.be.below(ANSWER_BOUND_MS);
  };

  it('answers 503 within its deadline while PostgreSQL is frozen and recovers once it thaws', async () => {
    const first = await signOrder(owner, CHAIN_ID.devnet, { sellAmount: '1000001' });
    const placed = await place(first);
    expect(placed.status, placed.text).to.equal(201);
    expect((await read(first.uid)).status).to.equal(200);

    const refused = await signOrder(owner, CHAIN_ID.devnet, { sellAmount: '1000002' });
    await postgres!.freeze();
    try {
      // First over the pooled connections opened before the freeze: their statements time out.
      const [reading, placing, versioned] = await Promise.all([
        read(first.uid),
        place(refused),
        version(),
      ]);
      expectUnavailable(reading, 'GET order (pooled connections)');
      expectUnavailable(placing, 'POST order (pooled connections)');
      // No deadline to wait for: it needs no database.
      expect(versioned.status, versioned.text).to.equal(200);
      expect(versioned.ms, 'GET version answered after').to.be.below(DEADLINES.queryMs);

      // The connections that timed out are gone; the others time out the same way, and new
      // ones never open.
      const [again, placingAgain] = await Promise.all([read(first.uid), place(refused)]);
      expectUnavailable(again, 'GET order (again)');
      expectUnavailable(placingAgain, 'POST order (again)');
      expect((await version()).status).to.equal(200);
    } finally {
      await postgres!.thaw();
    }

    // The same service recovers by itself: the order reads again, and new orders are accepted.
    await waitFor(async () => (await read(first.uid)).status === 200, {
      timeoutMs: 20_000,
      intervalMs: 100,
      description: 'the order readable again after the thaw',
    });
    const next = await signOrder(owner, CHAIN_ID.devnet, { sellAmount: '1000003' });
    const accepted = await place(next);
    expect(accepted.status, accepted.text).to.equal(201);
    expect((await read(next.uid)).status).to.equal(200);

    // The order refused while frozen may have reached the ledger after all (a statement sent
    // before its deadline runs once the server thaws): submitted again, it is accepted or known
    // as a duplicate, never refused otherwise.
    const resubmitted = await place(refused);
    if (resubmitted.status !== 201) {
      expect(resubmitted.status, resubmitted.text).to.equal(400);
      expect((resubmitted.body as ErrorBody).errorType).to.equal('DuplicatedOrder');
    }
    expect((await read(refused.uid)).status).to.equal(200);
  });
});
