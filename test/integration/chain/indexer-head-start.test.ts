/**
 * An indexer started without a start block (a public network's default: at the confirmed head)
 * that finds, once it runs again, that the chain reorganised below everything it had recorded
 * reads the new branch from below the fork, instead of jumping to the new head and missing what
 * the branch holds.
 */
import { expect } from 'chai';
import pg from 'pg';
import { startChainIndexer, type ChainIndexer } from '../../../src/chain/indexer.js';
import { createChainRpc, type ChainRpc } from '../../../src/chain/rpc.js';
import type { TradeSettledV1 } from '../../../src/domain/events.js';
import { networkByName } from '../../../src/domain/networks.js';
import { createPostgresLedger } from '../../../src/ledger/postgres.js';
import type { Ledger } from '../../../src/ledger/port.js';
import { createLogger } from '../../../src/logger.js';
import { leadershipOn } from '../../../src/postgres/leadership.js';
import { inTransaction } from '../../../src/postgres/transaction.js';
import { startTestChain, type TestChain } from '../../support/chain.js';
import { migratedDatabase } from '../../support/postgres.js';
import { coincidenceOfWants, settleOrders, signMatchingPair } from '../../support/settle.js';
import { waitFor } from '../../support/wait.js';

describe('chain indexer started at the head', function () {
  this.timeout(60_000);
  let chain: TestChain;
  let pool: pg.Pool;
  let ledger: Ledger;
  let rpc: ChainRpc;
  let indexer: ChainIndexer | undefined;

  const start = (url: string) =>
    startChainIndexer(
      {
        rpc,
        ledger,
        pool,
        inTransaction,
        requestLeadership: leadershipOn({ connectionString: url }),
        logger: createLogger('error'),
      },
      { confirmations: 0, pollIntervalMs: 10, maxBlockRange: 1000, startBlock: null },
    );

  let url: string;
  before(async () => {
    chain = await startTestChain();
    url = await migratedDatabase();
    pool = new pg.Pool({ connectionString: url, max: 8 });
    ledger = createPostgresLedger({ pool });
    rpc = createChainRpc(networkByName('devnet')!, chain.rpcUrl);
  });

  after(async () => {
    await indexer?.stop();
    rpc?.close();
    await ledger?.close();
    await pool?.end();
    await chain?.stop();
  });

  const cursor = async () => {
    const { rows } = await pool.query<{ n: string }>(
      "SELECT block_number AS n FROM chain.indexer_cursors WHERE network = 'devnet'",
    );
    return rows[0] ? Number(rows[0].n) : null;
  };

  it('records a trade the new branch holds below the block it had started at', async () => {
    const fork = await chain.snapshot();
    // History the indexer never reads: it starts at the head above it, then stops.
    await chain.mine(5);
    indexer = await start(url);
    const head = await chain.provider.getBlockNumber();
    await waitFor(async () => (await cursor()) === head, { description: 'the cursor at the head' });
    await indexer.stop();

    // While it is away, the chain forks below everything it knew; the new branch holds a trade
    // and grows past the old cursor.
    await chain.revert(fork);
    const [a, b] = await signMatchingPair(chain);
    const settled = await settleOrders(chain, coincidenceOfWants(a, b));
    const tradeBlock = (await chain.provider.getTransactionReceipt(settled.hash))!.blockNumber;
    await chain.mine(10);
    expect(tradeBlock).to.be.below(head);

    indexer = await start(url);
    const trades = async () =>
      (await ledger.readAll(null, 10_000))
        .filter((e) => e.type === 'TradeSettled')
        .map((e) => e.data as TradeSettledV1);
    await waitFor(async () => (await trades()).length === 2, {
      description: 'both trades of the new branch',
    });
    const recorded = await trades();
    expect(recorded.map((t) => t.uid).sort()).to.deep.equal([a.uid, b.uid].sort());
    expect(recorded.every((t) => t.chain.blockNumber === tradeBlock)).to.equal(true);
    // The trades reach the ledger before the cursor moves past their block: wait for it.
    const newHead = await chain.provider.getBlockNumber();
    await waitFor(async () => (await cursor()) === newHead, {
      description: 'the cursor at the new head',
    });
  });
});
