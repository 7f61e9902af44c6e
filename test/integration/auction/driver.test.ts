/**
 * The settlement driver alone, against the real GPv2Settlement on a devnet: what it sends and
 * what it records. A winner with no trades is a valid `settle()` for an allow-listed solver, so
 * these cases need no orders.
 */
import { expect } from 'chai';
import pg from 'pg';
import { pino } from 'pino';
import {
  createSettlementDriver,
  type SettlementDriver,
  type SettlementOutcome,
} from '../../../src/auction/driver.js';
import { devnetSolver } from '../../../src/chain/devnet/accounts.js';
import { createChainRpc } from '../../../src/chain/rpc.js';
import type {
  AuctionClosedV5,
  DomainEvent,
  RankedSolution,
  SettlementFailedV1,
} from '../../../src/domain/events.js';
import { networkByName } from '../../../src/domain/networks.js';
import { createPostgresLedger, type PostgresLedger } from '../../../src/ledger/postgres.js';
import { sharedTestChain, type TestChain } from '../../support/chain.js';
import { UNOBSERVED_AUCTIONS, type SettlementProgress } from '../../../src/auction/observer.js';
import { migratedDatabase } from '../../support/postgres.js';

describe('settlement driver', function () {
  this.timeout(30_000);

  const network = networkByName('devnet')!;
  let chain: TestChain;
  let snapshot: string;
  let pool: pg.Pool;
  let ledger: PostgresLedger;
  let driver: SettlementDriver;
  let auctionIds = 0;
  /** What the driver said became of each auction's winner. */
  const outcomes = new Map<number, SettlementOutcome>();
  /** What the driver told its observer, in order: each stage, with the gas mined ones used. */
  let progress: [SettlementProgress, bigint | undefined][] = [];
  beforeEach(() => (progress = []));

  before(async () => {
    chain = await sharedTestChain();
    snapshot = await chain.snapshot();
    pool = new pg.Pool({ connectionString: await migratedDatabase() });
    ledger = createPostgresLedger({ pool });
    driver = createSettlementDriver({
      network,
      rpc: createChainRpc(network, chain.rpcUrl),
      privateKey: devnetSolver().privateKey,
      ledger,
      clock: () => new Date(),
      logger: pino({ level: 'silent' }),
      receiptPollIntervalMs: 50,
      onOutcome: (auctionId, _, outcome) => outcomes.set(auctionId, outcome),
      observer: {
        ...UNOBSERVED_AUCTIONS,
        settlement: (_, __, stage, gasUsed) => progress.push([stage, gasUsed]),
      },
    });
  });

  after(async () => {
    await driver?.stop();
    await ledger?.close();
    await pool?.end();
    if (snapshot) await chain.revert(snapshot);
  });

  /** An auction whose one winner trades nothing, to settle by `deadline`. */
  function emptyWinner(deadline: Date): { auction: AuctionClosedV5; winner: RankedSolution } {
    const winner: RankedSolution = {
      solver: 'builtin',
      solverAddress: driver.address,
      score: '0',
      rank: 1,
      isWinner: true,
      filteredOut: false,
      referenceScore: '0',
      solutionId: 0,
      clearingPrices: {},
      orders: [],
      preInteractions: [],
      interactions: [],
      postInteractions: [],
    };
    const auction: AuctionClosedV5 = {
      network: network.name,
      id: ++auctionIds,
      block: 0,
      cutAt: new Date().toISOString(),
      deadline: deadline.toISOString(),
      deadlineBlock: 0,
      base: null,
      left: [],
      unpriced: [],
      unfiltered: [],
      orders: [],
      prices: {},
      filtered: [],
      solutions: [winner],
    };
    return { auction, winner };
  }

  const recorded = async (auctionId: number) =>
    ((await ledger.readAll(null, 100_000)) as unknown as DomainEvent[]).filter(
      (e) => (e.data as { auctionId?: number }).auctionId === auctionId,
    );

  const nonce = () => chain.provider.getTransactionCount(driver.address, 'latest');

  it('sends a winner due later, records it submitted, and says it landed', async () => {
    const { auction, winner } = emptyWinner(new Date(Date.now() + 60_000));
    const before = await nonce();
    await driver.settle(auction, [], winner);
    expect((await recorded(auction.id)).map((e) => e.type)).to.deep.equal(['SettlementSubmitted']);
    expect(await nonce()).to.equal(before + 1);
    const sent = (await recorded(auction.id))[0]!.data as { txHash: string };
    expect(outcomes.get(auction.id)).to.deep.equal({ kind: 'success', txHash: sent.txHash });
    const receipt = await chain.provider.getTransactionReceipt(sent.txHash);
    expect(progress).to.deep.equal([
      ['submitted', undefined],
      ['mined', receipt!.gasUsed],
    ]);
  });

  it('sends nothing once the auction’s deadline has passed, and records why', async () => {
    // A send that reaches the front of the driver's queue late: its orders are back in auctions.
    const { auction, winner } = emptyWinner(new Date(Date.now() - 1));
    const before = await nonce();
    await driver.settle(auction, [], winner);
    const events = await recorded(auction.id);
    expect(events.map((e) => e.type)).to.deep.equal(['SettlementFailed']);
    const failed = events[0]!.data as SettlementFailedV1;
    expect(failed).to.include({ reason: 'notSent', txHash: null });
    expect(failed.detail).to.contain('deadline');
    expect(await nonce()).to.equal(before);
    expect(outcomes.get(auction.id)).to.deep.equal({ kind: 'fail', reason: 'notSent' });
    expect(progress).to.deep.equal([['notSent', undefined]]);
  });
});
