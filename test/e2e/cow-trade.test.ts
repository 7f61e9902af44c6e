/**
 * Issue 5's end-to-end trade on the devnet: two accounts place opposite orders with the official
 * SDK (through the same code as `npm run demo`), the service's own autopilot matches them as a
 * coincidence of wants, its driver settles them through the real GPv2Settlement on anvil, the
 * indexer records the trades, and everything reads back through the API; the balances on chain
 * moved exactly as the trades say.
 */
import { expect } from 'chai';
import { Contract, id as topicOf, parseUnits } from 'ethers';
import { devnetSolver } from '../../src/chain/devnet/accounts.js';
import type { Address, AuctionClosedV5 } from '../../src/domain/events.js';
import { DEVNET_DEMO_TOKENS } from '../../src/domain/networks.js';
import { runDemoTrade, type DemoResult } from '../../scripts/demo/trade.js';
import { startTestChain, type TestChain } from '../support/chain.js';
import { startTestService, type TestService } from '../support/service.js';
import { newWallet } from '../support/signing.js';

const WETH: Address = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
const DUSD = DEVNET_DEMO_TOKENS.DUSD;
const UNISWAP_SWAP = topicOf('Swap(address,uint256,uint256,uint256,uint256,address)');

describe('e2e: a coincidence of wants traded on the devnet', function () {
  this.timeout(120_000);

  let service: TestService;
  let chain: TestChain;
  let result: DemoResult;
  const lines: string[] = [];
  const traders = [newWallet(), newWallet()].map((w) => ({
    address: w.address.toLowerCase() as Address,
    privateKey: w.privateKey as `0x${string}`,
  })) as [
    { address: Address; privateKey: `0x${string}` },
    { address: Address; privateKey: `0x${string}` },
  ];
  const balances: bigint[][] = [];
  const balanceOf = (token: Address, owner: Address) =>
    new Contract(
      token,
      ['function balanceOf(address) view returns (uint256)'],
      chain.provider,
    ).getFunction('balanceOf')(owner) as Promise<bigint>;
  const snapshotBalances = () =>
    Promise.all(
      traders.map((t) => Promise.all([balanceOf(WETH, t.address), balanceOf(DUSD, t.address)])),
    );

  before(async () => {
    // A chain of its own: its settlements would show up in every later suite's indexer.
    chain = await startTestChain();
    await chain.fund(traders[0].address, WETH, parseUnits('5', 18));
    await chain.fund(traders[1].address, DUSD, parseUnits('10000', 18));
    // Auctions every 200 ms: the match comes as soon as both orders are in.
    service = await startTestService({
      env: {
        DEVNET_RPC_URL: chain.rpcUrl,
        DEVNET_AUCTION_INTERVAL_MS: '200',
        NOTIFICATIONS_API_KEY: 'e2e-key',
      },
    });
    balances.push(...(await snapshotBalances()));
    result = await runDemoTrade({
      serviceUrl: service.url,
      rpcUrl: chain.rpcUrl,
      traders,
      timeoutMs: 60_000,
      report: (line) => lines.push(line),
    });
  });

  after(async () => {
    await service?.stop();
    await chain?.stop();
  });

  it('reads both orders as fulfilled, each with one trade in the same settlement', () => {
    const [weth, dusd] = result.orders;
    expect(weth).to.include({
      status: 'fulfilled',
      executedSellAmount: parseUnits('1', 18).toString(),
    });
    expect(dusd).to.include({
      status: 'fulfilled',
      executedSellAmount: parseUnits('3000', 18).toString(),
    });
    expect(result.trades.map((t) => t.length)).to.deep.equal([1, 1]);
    expect(result.trades[1][0]!.txHash).to.equal(result.txHash);
  });

  it('clears both orders at one uniform price: 3,000 DUSD per WETH, to the atom', () => {
    const [[wethTrade], [dusdTrade]] = result.trades;
    expect(wethTrade).to.include({
      sellAmount: parseUnits('1', 18).toString(),
      buyAmount: parseUnits('3000', 18).toString(),
    });
    expect(dusdTrade).to.include({
      sellAmount: parseUnits('3000', 18).toString(),
      buyAmount: parseUnits('1', 18).toString(),
    });
  });

  it('settles without touching a pool: a pure coincidence of wants', async () => {
    const receipt = await chain.provider.getTransactionReceipt(result.txHash);
    expect(receipt?.status).to.equal(1);
    expect(receipt!.logs.filter((log) => log.topics[0] === UNISWAP_SWAP)).to.deep.equal([]);
    const auction = (await service.ledger.readStream(`auction-devnet-${result.auctionId}`)).find(
      (e) => e.type === 'AuctionClosed',
    )!.data as AuctionClosedV5;
    const winner = auction.solutions.find((s) => s.isWinner)!;
    expect(winner.interactions).to.deep.equal([]);
    expect(winner.orders.map((o) => o.uid).sort()).to.deep.equal([...result.uids].sort());
  });

  it('moves the balances on chain exactly as the trades say', async () => {
    const after = await snapshotBalances();
    const [[wethTrade], [dusdTrade]] = result.trades;
    expect(after[0]![0]! - balances[0]![0]!).to.equal(-BigInt(wethTrade!.sellAmount));
    expect(after[0]![1]! - balances[0]![1]!).to.equal(BigInt(wethTrade!.buyAmount));
    expect(after[1]![1]! - balances[1]![1]!).to.equal(-BigInt(dusdTrade!.sellAmount));
    expect(after[1]![0]! - balances[1]![0]!).to.equal(BigInt(dusdTrade!.buyAmount));
  });

  it('serves the competition: the built-in solver won, settled in the observed transaction', () => {
    const { competition } = result;
    expect(competition.transactionHashes).to.deep.equal([result.txHash]);
    const winner = competition.solutions!.find((s) => s.isWinner)!;
    expect(winner).to.include({ solverAddress: devnetSolver().address, txHash: result.txHash });
    expect(BigInt(winner.score!) > 0n, `score ${winner.score}`).to.equal(true);
    expect(competition.auction!.orders).to.include.members(result.uids);
  });

  it('tells each trader of its fill and of the price it beat, in its notices', () => {
    expect(result.notices).to.not.equal(null);
    for (const [i, notices] of result.notices!.entries()) {
      const types = notices.map((n) => n.type);
      expect(types, `trader ${i}`).to.include.members(['order_filled', 'price_improvement']);
      expect(notices.every((n) => n.metadata.orderId === result.uids[i])).to.equal(true);
    }
  });

  it('reports every step a newcomer should see', () => {
    for (const step of [
      'quote',
      'order',
      'auction',
      'settled',
      'trade',
      'competition',
      'balance',
    ]) {
      expect(
        lines.some((line) => line.startsWith(step)),
        step,
      ).to.equal(true);
    }
  });
});
