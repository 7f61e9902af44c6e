/**
 * The autopilot cuts no auction before the read models show the last one: cut earlier, it would
 * not see that auction's winners in flight and would auction their orders again, while their
 * settlement is still pending. Here the auctions read model is held back by a table lock (writes
 * wait, reads do not), taken by the solver while it solves the auction of a pair, and the
 * settlement is left unmined.
 */
import { expect } from 'chai';
import pg from 'pg';
import type { Address, OrderUid } from '../../../src/domain/events.js';
import { startTestChain, type TestChain } from '../../support/chain.js';
import { freshDatabase } from '../../support/postgres.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import { signCowPair } from '../../support/settle.js';
import { newWallet } from '../../support/signing.js';
import {
  builtinAnswer,
  startSolverServer,
  type SolverServer,
} from '../../support/solver-server.js';
import { placeTrades } from '../../support/place.js';
import { waitFor } from '../../support/wait.js';
import { recordedAuctions } from '../../support/auctions.js';

const KEY = 'read-model-lag-admin-key';

describe('autopilot: read models behind its auction', function () {
  this.timeout(60_000);

  let chain: TestChain;
  let service: TestService;
  let admin: pg.Client;
  let solver: SolverServer;
  /** Solving an auction holding all these orders takes the lock (once). */
  let lockWhenSolving: readonly OrderUid[] = [];
  let locked = false;

  /** Holds the auctions read model's writes back until the transaction ends. */
  async function lockAuctionsReadModel(): Promise<void> {
    const { rows } = await admin.query<{ table: string }>(
      `SELECT format('%I.%I', table_schema, table_name) AS table FROM information_schema.tables
       WHERE table_name = 'auctions'`,
    );
    expect(rows, 'one auctions table').to.have.length(1);
    await admin.query('BEGIN');
    // SHARE: the projector's writes wait, the cut's reads of the read model do not.
    await admin.query(`LOCK TABLE ${rows[0]!.table} IN SHARE MODE`);
    locked = true;
  }

  before(async () => {
    chain = await startTestChain();
    const databaseUrl = await freshDatabase();
    admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    solver = await startSolverServer({
      respond: async (request) => {
        const uids = new Set(request.orders.map((order) => order.uid));
        if (
          !locked &&
          lockWhenSolving.length > 0 &&
          lockWhenSolving.every((uid) => uids.has(uid))
        ) {
          await lockAuctionsReadModel();
        }
        return builtinAnswer(request);
      },
    });
    service = await startTestService({
      databaseUrl,
      env: {
        DEVNET_RPC_URL: chain.rpcUrl,
        DEVNET_AUCTION_INTERVAL_MS: '100',
        SOLVE_TIMEOUT_MS: '200',
        ADMIN_API_KEY: KEY,
        BUILTIN_SOLVER: 'false',
        EXTERNAL_SOLVERS: JSON.stringify([
          { name: 'locking', url: solver.url, address: `0x${'c'.repeat(40)}` },
        ]),
      },
    });
  });

  after(async () => {
    await service?.stop();
    await solver?.close();
    await admin?.end();
    await chain?.stop();
  });

  /** The autopilot's timed-out waits for the read models, from /metrics. */
  const timedOutWaits = async () => {
    const { text } = await http('GET', `${service.url}/metrics`, undefined, { 'x-api-key': KEY });
    const line = /^batchbook_autopilot_read_model_timeouts_total\{network="devnet"\} (\d+)$/m.exec(
      text,
    );
    return Number(line?.[1] ?? 0);
  };

  const auctionsWith = async (uid: string) =>
    (await recordedAuctions(service.ledger)).filter((auction) =>
      auction.orders.some((o) => o.uid === uid),
    );

  it('waits for them, however long, before it cuts again: the pending winners’ orders are not auctioned twice', async () => {
    const [seller, buyer] = [newWallet(), newWallet()];
    const dusd = chain.deployment.tokens.find((t) => t.symbol === 'DUSD')!.address;
    await chain.fund(seller.address as Address, chain.deployment.weth.address, 2n * 10n ** 18n);
    await chain.fund(buyer.address as Address, dusd, 4000n * 10n ** 18n);
    const [a, b] = await signCowPair(chain, [seller, buyer]);

    lockWhenSolving = [a.uid, b.uid];
    await chain.provider.send('evm_setAutomine', [false]);
    try {
      await placeTrades(service.devnet, [a, b]);
      const pairAuctions = async () =>
        (await auctionsWith(a.uid)).filter((x) => x.orders.some((o) => o.uid === b.uid));
      await waitFor(async () => (await pairAuctions()).length > 0, {
        timeoutMs: 20_000,
        description: 'an auction of the pair',
      });
      expect(locked, 'the read model locked while the pair was solved').to.equal(true);
      const [first] = await pairAuctions();
      expect(first!.solutions.filter((s) => s.isWinner)).to.have.length(1);
      const waitsBefore = await timedOutWaits();
      await waitFor(async () => (await timedOutWaits()) >= waitsBefore + 3, {
        timeoutMs: 20_000,
        description: 'three more timed-out waits for the read models',
      });
      // Each wait was longer than an auction interval: a cut between them would have asked the
      // solver. (The ledger would not show its auction: reads stop short of the projector's
      // blocked transaction until it ends.)
      const askedForPair = solver.requests.filter((r) =>
        [a.uid, b.uid].every((uid) => r.orders.some((o) => o.uid === uid)),
      );
      expect(askedForPair.map((r) => r.id)).to.deep.equal([String(first!.id)]);
    } finally {
      if (locked) await admin.query('ROLLBACK');
      await chain.provider.send('evm_setAutomine', [true]);
      await chain.mine();
    }

    const fulfilled = async (uid: string) =>
      (await http<{ status: string }>('GET', `${service.devnet}/api/v1/orders/${uid}`)).body
        .status === 'fulfilled';
    await waitFor(async () => (await fulfilled(a.uid)) && (await fulfilled(b.uid)), {
      timeoutMs: 20_000,
      description: 'the pair settled once the settlement was mined',
    });
  });
});
