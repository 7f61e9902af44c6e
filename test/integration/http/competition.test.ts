/**
 * The solver competition's read side: GET /api/v2/solver_competition/{id | latest |
 * by_tx_hash/{hash}} and the seed's /api/v1/solver_competition/{id}, GET /orders/{uid}/status,
 * GET /users/{address}/total_surplus, and the orders in flight the autopilot leaves out.
 *
 * Orders are real signed orders placed through the API. The service's autopilot cuts no auction
 * here (an hour apart, and a validity margin no order meets), so the tests play the autopilot,
 * the settlement driver and the chain indexer themselves: they append `AuctionClosed`,
 * `SettlementSubmitted` / `SettlementFailed`, and `TradeSettled` / `SettlementObserved` to the
 * service's ledger, then wait for the read models to take them in. (The real chain path is the
 * end-to-end suite's.) Every 200 body is checked against the OpenAPI spec.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { hexlify, randomBytes, type Wallet } from 'ethers';
import knex, { type Knex } from 'knex';
import {
  type Address,
  type AuctionClosedV5,
  type DomainEvent,
  type Hex,
  type OrderUid,
  type RankedSolution,
  type SettlementFailureReason,
  streams,
} from '../../../src/domain/events.js';
import type { ApiAuction } from '../../../src/queries/auctions.js';
import {
  createCompetitionQueries,
  type CompetitionQueries,
} from '../../../src/queries/competitions.js';
import {
  documentedHttp,
  expectMatchesResponse,
  expectMatchesSchema,
} from '../../support/openapi.js';
import { fundedWallet } from '../../support/owners.js';
import { startTestService, type TestService } from '../../support/service.js';
import {
  CHAIN_ID,
  signCancellations,
  signOrder,
  TOKENS,
  type OrderParams,
  type SignedOrder,
} from '../../support/signing.js';
import { appendEach, readModelsCaughtUp } from '../../support/append-events.js';

const NETWORK = 'devnet';
const WETH = TOKENS.WETH.toLowerCase() as Address;
const DAI = TOKENS.DAI.toLowerCase() as Address;
const E18 = 10n ** 18n;
const HOUR = 3600_000;

interface ApiCompetition {
  auctionId: number;
  auctionStartBlock: number;
  auctionDeadlineBlock: number;
  transactionHashes: string[];
  referenceScores: Record<string, string>;
  auction: { orders: string[]; prices: Record<string, string> };
  solutions: {
    solverAddress: string;
    score: string;
    ranking: number;
    clearingPrices: Record<string, string>;
    orders: {
      id: string;
      sellAmount: string;
      buyAmount: string;
      sellToken?: string;
      buyToken?: string;
    }[];
    isWinner: boolean;
    filteredOut: boolean;
    txHash: string | null;
    referenceScore: string | null;
  }[];
}

interface ApiStatus {
  type: string;
  value?: { solver: string; executedAmounts: { sell: string; buy: string } }[];
}

type ErrorBody = { errorType: string; description: string };

/** A traded order of a solution, as `SolutionOrder` carries it. */
interface Traded {
  uid: OrderUid;
  sellToken: Address;
  buyToken: Address;
  sellAmount: string;
  buyAmount: string;
}

interface SolutionSpec {
  solver: string;
  address: Address;
  score: string;
  winner?: boolean;
  filteredOut?: boolean;
  referenceScore?: string | null;
  orders: Traded[];
}

interface AuctionSpec {
  orders?: SignedOrder[];
  filtered?: SignedOrder[];
  /** Best first: ranks follow the array. */
  solutions?: SolutionSpec[];
  prices?: Record<Address, string>;
  /** Default: an hour from now. */
  deadline?: Date;
}

const randomHash = (): Hex => hexlify(randomBytes(32)) as Hex;
const randomAddress = (): Address => hexlify(randomBytes(20)) as Address;
const randomUid = (): OrderUid => hexlify(randomBytes(56)) as OrderUid;

const traded = (order: SignedOrder): Traded => ({
  uid: order.uid,
  sellToken: order.order.sellToken.toLowerCase() as Address,
  buyToken: order.order.buyToken.toLowerCase() as Address,
  sellAmount: order.order.sellAmount,
  buyAmount: order.order.buyAmount,
});

describe('HTTP: the solver competition, order status and total surplus', function () {
  this.timeout(120_000);
  let service: TestService;
  let db: Knex;
  let queries: CompetitionQueries;
  let owner: Wallet;

  before(async () => {
    service = await startTestService({
      env: { AUCTION_INTERVAL_MS: '3600000', AUCTION_VALIDITY_MARGIN_SECONDS: '86400' },
    });
    db = knex({ client: 'pg', connection: service.databaseUrl, pool: { min: 0, max: 2 } });
    queries = createCompetitionQueries(db);
    owner = await fundedWallet();
  });
  after(async () => {
    await db?.destroy();
    await service?.stop();
  });

  const get = <T>(path: string) => documentedHttp<T>('GET', `${service.devnet}${path}`);

  // ---- the ledger, as the autopilot, the driver and the indexer would write it --------------

  /** Each auction of this file gets a fresh id above the previous: it is the network's latest. */
  let lastAuctionId = 1_000_000;
  let lastBlock = 5_000;

  /** Appends events and waits until every read model has taken them in. */
  async function append(...events: DomainEvent[]): Promise<void> {
    await caughtUp(await appendEach(service.ledger, events));
  }

  const caughtUp = (last: string) => readModelsCaughtUp(db, service.ledger, last);

  async function closeAuction(spec: AuctionSpec = {}): Promise<AuctionClosedV5> {
    const id = ++lastAuctionId;
    const block = ++lastBlock;
    const solutions: RankedSolution[] = (spec.solutions ?? []).map((s, i) => ({
      solver: s.solver,
      solverAddress: s.address,
      score: s.score,
      rank: i + 1,
      isWinner: s.winner ?? false,
      filteredOut: s.filteredOut ?? false,
      referenceScore: s.referenceScore ?? null,
      clearingPrices: { [WETH]: '1000', [DAI]: '1' },
      solutionId: i,
      orders: s.orders.map((o) => ({ ...o, executedAmount: o.sellAmount, fee: '0' })),
      preInteractions: [],
      interactions: [],
      postInteractions: [],
    }));
    const auction: AuctionClosedV5 = {
      network: NETWORK,
      id,
      block,
      cutAt: new Date().toISOString(),
      deadline: (spec.deadline ?? new Date(Date.now() + HOUR)).toISOString(),
      deadlineBlock: block + 5,
      base: null,
      left: [],
      unpriced: [],
      unfiltered: [],
      orders: (spec.orders ?? []).map((o) => ({ uid: o.uid, executed: '0' })),
      prices: spec.prices ?? { [WETH]: E18.toString(), [DAI]: '400000000000000' },
      filtered: (spec.filtered ?? []).map((o) => ({ uid: o.uid, reason: 'InsufficientBalance' })),
      solutions,
    };
    await append({ type: 'AuctionClosed', data: auction });
    return auction;
  }

  const submitted = (auction: AuctionClosedV5, rank: number, txHash: Hex): DomainEvent => ({
    type: 'SettlementSubmitted',
    data: {
      network: NETWORK,
      auctionId: auction.id,
      rank,
      from: randomAddress(),
      txHash,
      nonce: 0,
      gasLimit: '600000',
      submittedAt: new Date().toISOString(),
    },
  });

  const failed = (
    auction: AuctionClosedV5,
    rank: number,
    txHash: Hex | null,
    reason: SettlementFailureReason = txHash ? 'reverted' : 'simulationFailed',
  ): DomainEvent => ({
    type: 'SettlementFailed',
    data: {
      network: NETWORK,
      auctionId: auction.id,
      rank,
      txHash,
      reason,
      detail: 'execution reverted',
      failedAt: new Date().toISOString(),
    },
  });

  let logIndex = 0;
  const chainAt = (txHash: Hex) => ({
    chainId: CHAIN_ID.devnet,
    blockNumber: ++lastBlock,
    blockHash: randomHash(),
    logIndex: ++logIndex,
    txHash,
  });

  const observed = (txHash: Hex): DomainEvent => ({
    type: 'SettlementObserved',
    data: {
      network: NETWORK,
      solver: randomAddress(),
      settledAt: new Date().toISOString(),
      chain: chainAt(txHash),
    },
  });

  const tradeOf = (
    order: SignedOrder,
    txHash: Hex,
    amounts: { sell: bigint; buy: bigint },
  ): DomainEvent => ({
    type: 'TradeSettled',
    data: {
      network: NETWORK,
      uid: order.uid,
      owner: order.owner,
      auctionId: null,
      sellToken: order.order.sellToken.toLowerCase() as Address,
      buyToken: order.order.buyToken.toLowerCase() as Address,
      sellAmount: amounts.sell.toString(),
      buyAmount: amounts.buy.toString(),
      feeAmount: '0',
      settledAt: new Date().toISOString(),
      chain: chainAt(txHash),
    },
  });

  // ---- orders and HTTP --------------------------------------------------------------------

  let distinct = 0;
  /** A fresh order of `wallet` placed through the API (distinct amounts keep the UIDs apart). */
  async function place(overrides: Partial<OrderParams> = {}, wallet = owner): Promise<SignedOrder> {
    const signed = await signOrder(wallet, CHAIN_ID.devnet, {
      sellAmount: String(E18 + BigInt(++distinct)),
      ...overrides,
    });
    const response = await documentedHttp('POST', `${service.devnet}/api/v1/orders`, signed.body);
    expect(response.status, response.text).to.equal(201);
    return signed;
  }

  async function competition(path: string, specPath: string | null): Promise<ApiCompetition> {
    const response = await get<ApiCompetition>(path);
    expect(response.status, `${path}: ${response.text}`).to.equal(200);
    if (specPath) expectMatchesResponse('get', specPath, 200, response.body);
    else expectMatchesSchema('SolverCompetitionResponse', response.body);
    return response.body;
  }

  async function status(order: { uid: string }): Promise<ApiStatus> {
    const response = await get<ApiStatus>(`/api/v1/orders/${order.uid}/status`);
    expect(response.status, response.text).to.equal(200);
    expectMatchesResponse('get', '/api/v1/orders/{UID}/status', 200, response.body);
    return response.body;
  }

  async function totalSurplus(address: string): Promise<string> {
    const response = await get<{ totalSurplus: string }>(`/api/v1/users/${address}/total_surplus`);
    expect(response.status, response.text).to.equal(200);
    expectMatchesResponse('get', '/api/v1/users/{address}/total_surplus', 200, response.body);
    return response.body.totalSurplus;
  }

  async function expectError(path: string, code: number, errorType?: string, description?: string) {
    const response = await get<ErrorBody>(path);
    expect(response.status, `${path}: ${response.text}`).to.equal(code);
    expect(response.body.errorType, path).to.be.a('string');
    expect(response.body.description, path).to.be.a('string');
    if (errorType) expect(response.body.errorType, path).to.equal(errorType);
    if (description) expect(response.body.description, path).to.equal(description);
  }

  const solver = (
    name: string,
    score: string,
    orders: Traded[],
    extra: Partial<SolutionSpec> = {},
  ) => ({ solver: name, address: randomAddress(), score, orders, ...extra }) satisfies SolutionSpec;

  // ---- the competition --------------------------------------------------------------------

  it('serves a competition by id, as the latest, by tx hash and on the v1 path, worst first', async () => {
    const [a, b] = [await place(), await place({ kind: 'buy', buyAmount: String(3000n * E18) })];
    const alpha = solver('alpha', '900', [traded(a)], { winner: true, referenceScore: '400' });
    const beta = solver('beta', '700', [traded(b)], { winner: true, referenceScore: '650' });
    const gamma = solver('gamma', '800', [traded(a), traded(b)]);
    const delta = solver('delta', '1000', [traded(a), traded(b)], { filteredOut: true });
    const auction = await closeAuction({ orders: [a, b], solutions: [alpha, beta, gamma, delta] });
    const [landed, pending] = [randomHash(), randomHash()];
    await append(submitted(auction, 1, landed), submitted(auction, 2, pending), observed(landed));

    const body = await competition(
      `/api/v2/solver_competition/${auction.id}`,
      '/api/v2/solver_competition/{auction_id}',
    );
    const order = (o: SignedOrder) => ({
      id: o.uid,
      sellAmount: o.order.sellAmount,
      buyAmount: o.order.buyAmount,
      sellToken: WETH,
      buyToken: DAI,
    });
    const clearingPrices = { [WETH]: '1000', [DAI]: '1' };
    expect(body).to.deep.equal({
      auctionId: auction.id,
      auctionStartBlock: auction.block,
      auctionDeadlineBlock: auction.deadlineBlock,
      // Only the settlement the indexer has seen land.
      transactionHashes: [landed],
      referenceScores: { [alpha.address]: '400', [beta.address]: '650' },
      auction: { orders: [a.uid, b.uid], prices: auction.prices },
      solutions: [
        {
          solverAddress: delta.address,
          score: '1000',
          ranking: 4,
          clearingPrices,
          orders: [order(a), order(b)],
          isWinner: false,
          filteredOut: true,
          txHash: null,
          referenceScore: null,
        },
        {
          solverAddress: gamma.address,
          score: '800',
          ranking: 3,
          clearingPrices,
          orders: [order(a), order(b)],
          isWinner: false,
          filteredOut: false,
          txHash: null,
          referenceScore: null,
        },
        {
          solverAddress: beta.address,
          score: '700',
          ranking: 2,
          clearingPrices,
          orders: [order(b)],
          isWinner: true,
          filteredOut: false,
          // Sent, not landed yet: the solution shows it.
          txHash: pending,
          referenceScore: '650',
        },
        {
          solverAddress: alpha.address,
          score: '900',
          ranking: 1,
          clearingPrices,
          orders: [order(a)],
          isWinner: true,
          filteredOut: false,
          txHash: landed,
          referenceScore: '400',
        },
      ],
    });

    expect(
      await competition('/api/v2/solver_competition/latest', '/api/v2/solver_competition/latest'),
    ).to.deep.equal(body);
    for (const hash of [landed, pending, landed.slice(2).toUpperCase()]) {
      expect(
        await competition(
          `/api/v2/solver_competition/by_tx_hash/${hash}`,
          '/api/v2/solver_competition/by_tx_hash/{tx_hash}',
        ),
      ).to.deep.equal(body);
    }
    // The seed's path (not in the reference's spec): the same body, checked against the schema.
    expect(await competition(`/api/v1/solver_competition/${auction.id}`, null)).to.deep.equal(body);
  });

  it('shows no transaction for a failed settlement, and lists a transaction once it lands', async () => {
    const [a, b, c] = [await place(), await place(), await place()];
    const auction = await closeAuction({
      orders: [a, b, c],
      solutions: [
        solver('one', '30', [traded(a)], { winner: true }),
        solver('two', '20', [traded(b)], { winner: true }),
        solver('three', '10', [traded(c)], { winner: true }),
      ],
    });
    const [reverted, slow] = [randomHash(), randomHash()];
    await append(
      submitted(auction, 1, reverted),
      failed(auction, 1, reverted),
      // No transaction at all: the simulation failed.
      failed(auction, 2, null),
      submitted(auction, 3, slow),
    );
    const path = `/api/v2/solver_competition/${auction.id}`;
    const spec = '/api/v2/solver_competition/{auction_id}';
    let body = await competition(path, spec);
    expect(body.transactionHashes).to.deep.equal([]);
    expect(body.referenceScores).to.deep.equal({});
    expect(body.solutions.map((s) => [s.ranking, s.txHash])).to.deep.equal([
      [3, slow],
      [2, null],
      [1, null],
    ]);
    // The reverted transaction still names the auction that sent it.
    const byTx = await competition(
      `/api/v2/solver_competition/by_tx_hash/${reverted}`,
      '/api/v2/solver_competition/by_tx_hash/{tx_hash}',
    );
    expect(byTx.auctionId).to.equal(auction.id);

    await append(observed(slow));
    body = await competition(path, spec);
    expect(body.transactionHashes).to.deep.equal([slow]);
  });

  it('serves an auction without solutions, which counts as the latest', async () => {
    const order = await place();
    const auction = await closeAuction({ orders: [order] });
    const body = await competition(
      '/api/v2/solver_competition/latest',
      '/api/v2/solver_competition/latest',
    );
    expect(body).to.deep.equal({
      auctionId: auction.id,
      auctionStartBlock: auction.block,
      auctionDeadlineBlock: auction.deadlineBlock,
      transactionHashes: [],
      referenceScores: {},
      auction: { orders: [order.uid], prices: auction.prices },
      solutions: [],
    });
  });

  it('serves an auction the ledger holds at version 2, its orders copied whole, as it did then', async () => {
    const [a, b] = [await place(), await place({ kind: 'buy', buyAmount: String(3000n * E18) })];
    // What the v2 autopilot copied of each order, and what GET /auction then served.
    const copy = async (signed: SignedOrder, executed: string) => {
      const placed = await get<{ creationDate: string }>(`/api/v1/orders/${signed.uid}`);
      const { order } = signed;
      return {
        sellToken: WETH,
        buyToken: DAI,
        receiver: null,
        sellAmount: order.sellAmount,
        buyAmount: order.buyAmount,
        validTo: order.validTo,
        appData: signed.appDataHash,
        feeAmount: order.feeAmount,
        kind: order.kind,
        partiallyFillable: order.partiallyFillable,
        sellTokenBalance: order.sellTokenBalance,
        buyTokenBalance: order.buyTokenBalance,
        uid: signed.uid,
        owner: signed.owner,
        created: Math.floor(Date.parse(placed.body.creationDate) / 1000),
        executed,
        preInteractions: [],
        postInteractions: [],
        class: 'limit',
        signingScheme: 'eip712',
        signature: signed.body.signature,
        protocolFees: [],
      };
    };
    const copies = [await copy(a, '0'), await copy(b, '5')];
    const id = ++lastAuctionId;
    const block = ++lastBlock;
    const v2 = {
      network: NETWORK,
      id,
      block,
      cutAt: new Date().toISOString(),
      deadline: new Date(Date.now() + HOUR).toISOString(),
      deadlineBlock: block + 5,
      orders: copies,
      prices: { [WETH]: E18.toString(), [DAI]: '400000000000000' },
      filtered: [],
      solutions: [
        {
          solver: 'alpha',
          solverAddress: randomAddress(),
          score: '900',
          rank: 1,
          isWinner: true,
          filteredOut: false,
          referenceScore: '0',
          clearingPrices: { [WETH]: '1000', [DAI]: '1' },
          // v2 named no tokens here: they came from the copies.
          orders: [{ uid: b.uid, executedAmount: '7', sellAmount: '7', buyAmount: '7000' }],
          interactions: [],
        },
      ],
    };
    const { position } = await service.ledger.append(
      streams.auction(NETWORK, id),
      [{ id: randomUUID(), type: 'AuctionClosed', version: 2, data: v2 }],
      'noStream',
    );
    await caughtUp(position);

    const served = await get<ApiAuction>('/api/v1/auction');
    expect(served.status, served.text).to.equal(200);
    expectMatchesResponse('get', '/api/v1/auction', 200, served.body);
    expect(served.body).to.deep.equal({
      id,
      block,
      orders: copies,
      prices: v2.prices,
      surplusCapturingJitOrderOwners: [],
    });
    const body = await competition(
      `/api/v2/solver_competition/${id}`,
      '/api/v2/solver_competition/{auction_id}',
    );
    expect(body.auction.orders).to.deep.equal([a.uid, b.uid]);
    expect(body.solutions[0]!.orders).to.deep.equal([
      { id: b.uid, sellAmount: '7', buyAmount: '7000', sellToken: WETH, buyToken: DAI },
    ]);
  });

  it('answers 400 for a malformed id or hash and 404 NotFound for an unknown competition', async () => {
    for (const id of ['abc', '-1', '1.5', '0x10', '18446744073709551616', '1e3']) {
      await expectError(`/api/v2/solver_competition/${id}`, 400);
      await expectError(`/api/v1/solver_competition/${id}`, 400);
    }
    for (const hash of ['0x1234', `0x${'g'.repeat(64)}`, `0x${'1'.repeat(66)}`]) {
      await expectError(`/api/v2/solver_competition/by_tx_hash/${hash}`, 400);
    }
    const notFound = ['NotFound', 'no competition found'] as const;
    for (const path of [
      '/api/v2/solver_competition/999999999',
      '/api/v2/solver_competition/18446744073709551615',
      '/api/v1/solver_competition/999999999',
      `/api/v2/solver_competition/by_tx_hash/${randomHash()}`,
    ]) {
      await expectError(path, 404, ...notFound);
    }
    const sepolia = await documentedHttp<ErrorBody>(
      'GET',
      `${service.url}/sepolia/api/v2/solver_competition/latest`,
    );
    expect(sepolia.status).to.equal(404);
    expect(sepolia.body).to.deep.equal({ errorType: 'NotFound', description: notFound[1] });
  });

  // ---- order status ------------------------------------------------------------------------

  it('follows an order from scheduled through active, solved and executing to traded', async () => {
    const order = await place();
    expect(await status(order)).to.deep.equal({ type: 'scheduled' });

    await closeAuction({ orders: [order] });
    expect(await status(order)).to.deep.equal({ type: 'active' });

    const amounts = { sell: order.order.sellAmount, buy: order.order.buyAmount };
    const [betterLoser, loser] = [
      solver('better-loser', '40', [traded(order)]),
      solver('loser', '30', [traded(order)]),
    ];
    await closeAuction({
      orders: [order],
      solutions: [
        solver('winner', '50', [traded(await place())], { winner: true }),
        betterLoser,
        loser,
      ],
    });
    // Every solution that holds it, worst first, each named by its solver's address.
    expect(await status(order)).to.deep.equal({
      type: 'solved',
      value: [
        { solver: loser.address, executedAmounts: amounts },
        { solver: betterLoser.address, executedAmounts: amounts },
      ],
    });

    const fast = solver('fast', '90', [traded(order)], { winner: true });
    const auction = await closeAuction({
      orders: [order],
      solutions: [fast, solver('slow', '80', [traded(order)])],
    });
    // Only the winners: not sent yet, then sent.
    const won = [{ solver: fast.address, executedAmounts: amounts }];
    const executing = { type: 'executing', value: won };
    expect(await status(order)).to.deep.equal(executing);
    const tx = randomHash();
    await append(submitted(auction, 1, tx));
    expect(await status(order)).to.deep.equal(executing);

    // A later auction that leaves it out (it is in flight) changes nothing.
    await closeAuction({ orders: [await place()] });
    expect(await status(order)).to.deep.equal(executing);

    await append(
      observed(tx),
      tradeOf(order, tx, { sell: BigInt(amounts.sell), buy: BigInt(amounts.buy) }),
    );
    expect(await status(order)).to.deep.equal({ type: 'traded', value: won });
  });

  it('is open again once the winning settlement failed or its deadline passed', async () => {
    const [viaFailure, viaDeadline, noTx] = [await place(), await place(), await place()];
    const auction = await closeAuction({
      orders: [viaFailure, noTx],
      solutions: [
        solver('a', '20', [traded(viaFailure)], { winner: true }),
        solver('b', '10', [traded(noTx)], { winner: true }),
      ],
    });
    const tx = randomHash();
    await append(submitted(auction, 1, tx));
    expect((await status(viaFailure)).type).to.equal('executing');
    expect((await status(noTx)).type).to.equal('executing');
    await append(failed(auction, 1, tx, 'timedOut'), failed(auction, 2, null, 'notSent'));
    expect(await status(viaFailure)).to.deep.equal({ type: 'open' });
    expect(await status(noTx)).to.deep.equal({ type: 'open' });

    await closeAuction({
      orders: [viaDeadline],
      solutions: [solver('late', '10', [traded(viaDeadline)], { winner: true })],
      deadline: new Date(Date.now() - 60_000),
    });
    expect(await status(viaDeadline)).to.deep.equal({ type: 'open' });

    // Back in the next auction: active again.
    await closeAuction({ orders: [viaFailure] });
    expect(await status(viaFailure)).to.deep.equal({ type: 'active' });
  });

  it('is open when the latest auction filtered the order out or an older auction held it', async () => {
    const [filtered, older] = [await place(), await place()];
    await closeAuction({ orders: [older] });
    expect((await status(older)).type).to.equal('active');
    await closeAuction({ orders: [], filtered: [filtered] });
    expect(await status(filtered)).to.deep.equal({ type: 'open' });
    expect(await status(older)).to.deep.equal({ type: 'open' });
  });

  it('is cancelled after an API cancellation, and traded wins over cancelled', async () => {
    const [cancelled, tradedAnyway] = [await place(), await place()];
    await closeAuction({ orders: [cancelled, tradedAnyway] });
    const body = await signCancellations(owner, CHAIN_ID.devnet, [cancelled.uid, tradedAnyway.uid]);
    const response = await documentedHttp('DELETE', `${service.devnet}/api/v1/orders`, body);
    expect(response.status, response.text).to.equal(200);
    expect(await status(cancelled)).to.deep.equal({ type: 'cancelled' });

    // Settled by a transaction no competition of ours sent: no solutions to show.
    await append(tradeOf(tradedAnyway, randomHash(), { sell: E18, buy: 2000n * E18 }));
    expect(await status(tradedAnyway)).to.deep.equal({ type: 'traded', value: [] });
  });

  it('answers 404 NotFound for an unknown order and 400 for a malformed UID', async () => {
    await expectError(
      `/api/v1/orders/${randomUid()}/status`,
      404,
      'NotFound',
      'order status not found',
    );
    for (const uid of ['0x1234', `0x${'z'.repeat(112)}`]) {
      await expectError(`/api/v1/orders/${uid}/status`, 400);
    }
  });

  // ---- total surplus -----------------------------------------------------------------------

  it('sums the surplus of the owner trades in native-token atoms, each trade floored at 0', async () => {
    const wallet = await fundedWallet();
    // Sell 3 WETH for at least 1000e18 + 1 DAI, partially fillable.
    const sell = await place(
      {
        sellAmount: String(3n * E18),
        buyAmount: String(1000n * E18 + 1n),
        partiallyFillable: true,
      },
      wallet,
    );
    // Buy 3000 DAI for at most 1 WETH.
    const buy = await place(
      {
        kind: 'buy',
        sellAmount: String(E18),
        buyAmount: String(3000n * E18),
        partiallyFillable: true,
      },
      wallet,
    );
    // Sell 1 WETH for at least 2000 DAI; it will trade below its limit (no surplus).
    const below = await place({ sellAmount: String(E18), buyAmount: String(2000n * E18) }, wallet);

    // The sell order settles through an auction that priced DAI at 4e14 (later ones differ).
    const auction = await closeAuction({
      orders: [sell],
      solutions: [solver('s', '1', [traded(sell)], { winner: true })],
      prices: { [WETH]: E18.toString(), [DAI]: '400000000000000' },
    });
    const tx = randomHash();
    await append(submitted(auction, 1, tx));
    // The latest auction to price WETH (the buy order's surplus token) prices it at 0.9.
    await closeAuction({ prices: { [WETH]: '900000000000000000', [DAI]: '500000000000000' } });
    await append(
      // 1 WETH sold for 400 DAI. Limit: ceil(1e18 × (1000e18 + 1) / 3e18) = 333333333333333333334.
      // Surplus 400e18 − 333333333333333333334 = 66666666666666666666 DAI atoms;
      // × 4e14 / 1e18 = 26666666666666666 (floor of 26666666666666666.6664).
      tradeOf(sell, tx, { sell: E18, buy: 400n * E18 }),
      // 1000 DAI bought for 0.3 WETH, by a transaction no attempt of ours sent.
      // Limit: floor(1000e18 × 1e18 / 3000e18) = 333333333333333333 WETH atoms;
      // surplus 333333333333333333 − 3e17 = 33333333333333333; × 9e17 / 1e18 = 29999999999999999.
      tradeOf(buy, randomHash(), { sell: 3n * 10n ** 17n, buy: 1000n * E18 }),
      // 1900 DAI for 1 WETH: 100 DAI short of the limit, so 0 rather than negative.
      tradeOf(below, randomHash(), { sell: E18, buy: 1900n * E18 }),
    );
    expect(await totalSurplus(wallet.address)).to.equal(
      (26666666666666666n + 29999999999999999n).toString(),
    );
    expect(await totalSurplus(wallet.address.slice(2).toUpperCase())).to.equal('56666666666666665');
    expect(await totalSurplus(randomAddress())).to.equal('0');
    await expectError('/api/v1/users/0x1234/total_surplus', 400);
  });

  // ---- the orders in flight ----------------------------------------------------------------

  it('keeps the orders of pending winners in flight until they fail or pass the deadline, with the fill that ends it', async () => {
    const [notSent, sent, failedOne, landed, loser, late] = [
      randomUid(),
      randomUid(),
      randomUid(),
      randomUid(),
      randomUid(),
      randomUid(),
    ];
    const volume = (uid: OrderUid): Traded => ({
      uid,
      sellToken: WETH,
      buyToken: DAI,
      sellAmount: '1',
      buyAmount: '1',
    });
    const auction = await closeAuction({
      solutions: [
        solver('w1', '60', [volume(notSent)], { winner: true }),
        solver('w2', '50', [volume(sent)], { winner: true }),
        solver('w3', '40', [volume(failedOne)], { winner: true }),
        solver('w4', '30', [volume(landed)], { winner: true }),
        solver('l', '20', [volume(loser)]),
      ],
    });
    const [sentTx, failedTx, landedTx] = [randomHash(), randomHash(), randomHash()];
    await append(
      submitted(auction, 2, sentTx),
      submitted(auction, 3, failedTx),
      failed(auction, 3, failedTx),
      submitted(auction, 4, landedTx),
      observed(landedTx),
    );
    await closeAuction({
      solutions: [solver('w', '10', [volume(late)], { winner: true })],
      deadline: new Date(Date.now() - 1000),
    });

    const now = new Date();
    const uids = async (at: Date, network = NETWORK) =>
      (await queries.inFlight(network, at)).map((o) => o.uid);
    const inFlight = await queries.inFlight(NETWORK, now);
    // A landed settlement's orders stay listed: the cut lets them go once the orders read
    // model shows them filled to `filledAfter` (the auction did not hold these: 0 before).
    expect(inFlight.map((o) => o.uid)).to.include.members([notSent, sent, landed]);
    expect(inFlight.find((o) => o.uid === landed)).to.deep.equal({ uid: landed, filledAfter: '1' });
    for (const uid of [failedOne, loser, late]) expect(await uids(now)).to.not.include(uid);
    expect(await uids(now)).to.deep.equal([...new Set(await uids(now))].sort());
    // Past the deadline, nothing of that auction.
    const later = await uids(new Date(Date.parse(auction.deadline) + 1));
    expect(later).to.not.include(notSent);
    expect(later).to.not.include(sent);
    expect(await uids(now, 'mainnet')).to.deep.equal([]);
  });
});
