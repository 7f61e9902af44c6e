/**
 * Faults (issue 7, item 2): the chain's JSON-RPC goes away (refused, then hanging) behind a
 * proxy, while the node itself keeps its chain. Writes that need the chain (the order checks,
 * quotes) answer 503 `ChainUnavailable` within their deadline and write nothing; reads keep being
 * served from the read models. A trade settled meanwhile is indexed once the RPC is back: once,
 * with no block skipped.
 */
import { expect } from 'chai';
import type { TradeSettledV1 } from '../../../src/domain/events.js';
import { settlementInterface } from '../../../src/chain/settlement-call.js';
import { startTestChain, type TestChain } from '../../support/chain.js';
import { openLedgerAudit, type LedgerAudit } from '../../support/ledger-audit.js';
import { startRpcProxy, type RpcProxy, type CutMode } from '../../support/rpc-proxy.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import {
  coincidenceOfWants,
  orderBody,
  settleOrders,
  signMatchingPair,
  type SignedTrade,
} from '../../support/settle.js';
import { waitFor, withDeadline } from '../../support/wait.js';

/**
 * A refused node costs the default retries' backoff (0.1 + 0.2 + 0.4 s); a hanging one a single
 * `RPC_TIMEOUT_MS` (1 s here), as time-outs are not retried: both fit well inside this.
 */
const WRITE_DEADLINE_MS = 2_500;
const TRADE_TOPIC = settlementInterface.getEvent('Trade')!.topicHash;

describe('faults: the chain RPC stops', function () {
  this.timeout(90_000);
  let chain: TestChain | undefined;
  let proxy: RpcProxy | undefined;
  let service: TestService | undefined;
  let audit: LedgerAudit | undefined;

  before(async () => {
    chain = await startTestChain();
    proxy = await startRpcProxy(chain.rpcUrl);
    service = await startTestService({
      env: {
        DEVNET_RPC_URL: proxy.url,
        RPC_TIMEOUT_MS: '1000',
        // Auctions of the open orders, with no solver: the trades here are settled by hand.
        DEVNET_AUCTION_INTERVAL_MS: '300',
        BUILTIN_SOLVER: 'false',
      },
    });
    audit = await openLedgerAudit(service.databaseUrl);
  });

  after(async () => {
    await service?.stop();
    await audit?.close();
    await proxy?.close();
    await chain?.stop();
  });

  const place = (trade: SignedTrade) =>
    http('POST', `${service!.devnet}/api/v1/orders`, orderBody(trade));
  /** A quote of 1 WETH for DUSD, which the devnet's pools price. */
  const quote = (trade: SignedTrade) =>
    http('POST', `${service!.devnet}/api/v1/quote`, {
      sellToken: chain!.deployment.weth.address,
      buyToken: chain!.deployment.tokens.find((t) => t.symbol === 'DUSD')!.address,
      from: trade.owner,
      kind: 'sell',
      sellAmountBeforeFee: String(10n ** 18n),
    });
  const tradesOf = async (uid: string) =>
    (await http<unknown[]>('GET', `${service!.devnet}/api/v2/trades?orderUid=${uid}`)).body;
  const auctionId = async () =>
    (await http<{ id?: number }>('GET', `${service!.devnet}/api/v1/auction`)).body.id ?? null;

  /** The reads a client makes, as status and body. */
  const reads = async (trade: SignedTrade) => {
    const paths = [
      `/api/v1/orders/${trade.uid}`,
      `/api/v1/account/${trade.owner}/orders`,
      `/api/v2/trades?owner=${trade.owner}`,
      `/api/v1/trades?owner=${trade.owner}`,
      `/api/v1/version`,
    ];
    const answers = await Promise.all(
      paths.map((path) => http('GET', `${service!.devnet}${path}`)),
    );
    return answers.map(({ status, text }, i) => ({ path: paths[i], status, text }));
  };

  /** A write that needs the chain answers 503 ChainUnavailable in time, and writes nothing. */
  const expectChainUnavailable = async (mode: CutMode, trade: SignedTrade) => {
    for (const [what, write] of [
      ['order', () => place(trade)],
      ['quote', () => quote(trade)],
    ] as const) {
      const answer = await withDeadline(write(), WRITE_DEADLINE_MS, `${what} (${mode})`);
      expect(answer.status, `${what} (${mode}): ${answer.text}`).to.equal(503);
      expect(answer.body).to.deep.include({ errorType: 'ChainUnavailable' });
    }
    const read = await http('GET', `${service!.devnet}/api/v1/orders/${trade.uid}`);
    expect(read.status).to.equal(404);
  };

  it('refuses chain writes clearly, keeps serving reads, and indexes what it missed once', async () => {
    const c = chain!;
    const before = await signMatchingPair(c);
    const during = await signMatchingPair(c);
    for (const trade of [...before, ...during]) {
      const placed = await place(trade);
      expect(placed.status, placed.text).to.equal(201);
    }
    await settleOrders(c, coincidenceOfWants(...before));
    await waitFor(async () => (await tradesOf(before[0].uid)).length === 1, {
      description: 'the first trade indexed',
    });
    await waitFor(async () => (await auctionId()) !== null, { description: 'an auction' });
    const served = await reads(before[0]);

    const [refused, hung] = await signMatchingPair(c);
    proxy!.cut('refuse');
    await expectChainUnavailable('refuse', refused);
    expect(await reads(before[0])).to.deep.equal(served);
    expect((await http('GET', `${service!.devnet}/api/v1/auction`)).status).to.equal(200);

    // Settled straight on the node while the service cannot see it, with blocks after it.
    const receipt = await settleOrders(c, coincidenceOfWants(...during));
    await c.mine(3);
    proxy!.cut('hang');
    await expectChainUnavailable('hang', hung);
    expect(await reads(before[0])).to.deep.equal(served);
    expect(await tradesOf(during[0].uid)).to.deep.equal([]);
    const stoppedAt = (await audit!.indexerCursor('devnet'))!;
    expect(stoppedAt, 'the indexer cursor while cut').to.be.below(receipt.blockNumber);
    const lastAuction = await auctionId();

    proxy!.restore();
    await waitFor(
      async () =>
        (await tradesOf(during[0].uid)).length === 1 &&
        (await tradesOf(during[1].uid)).length === 1,
      { timeoutMs: 15_000, description: 'the trade settled during the outage' },
    );
    const indexed = (await tradesOf(during[0].uid)) as { txHash: string }[];
    expect(indexed[0]!.txHash).to.equal(receipt.hash.toLowerCase());

    // Every Trade log on the chain is in the ledger exactly once: no block skipped, none twice.
    const head = await c.provider.getBlockNumber();
    await waitFor(async () => ((await audit!.indexerCursor('devnet')) ?? -1) >= head, {
      timeoutMs: 15_000,
      description: `the indexer at block ${head}`,
    });
    const logs = await c.provider.getLogs({
      address: c.deployment.settlement,
      topics: [TRADE_TOPIC],
      fromBlock: 0,
      toBlock: head,
    });
    const onChain = logs.map((l) => `${l.transactionHash.toLowerCase()}:${l.index}`).sort();
    const inLedger = (await audit!.events())
      .filter((e) => e.type === 'TradeSettled')
      .map((e) => (e.data as TradeSettledV1).chain)
      .map((chainRef) => `${chainRef.txHash}:${chainRef.logIndex}`)
      .sort();
    expect(onChain).to.have.length(4);
    expect(inLedger).to.deep.equal(onChain);

    // The writes and the autopilot work again.
    const again = await place(refused);
    expect(again.status, again.text).to.equal(201);
    const quoted = await quote(hung);
    expect(quoted.status, quoted.text).to.equal(200);
    await waitFor(async () => ((await auctionId()) ?? 0) > (lastAuction ?? 0), {
      timeoutMs: 10_000,
      description: 'an auction cut after the outage',
    });
  });
});
