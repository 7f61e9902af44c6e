/**
 * The chain drives order lifecycles (issue "Chains" items 4–6): the indexer turns the real
 * settlement contract's logs on a private anvil into ledger facts, and the API shows them.
 * Trades, pre-signatures and invalidations; a reorg that takes a trade and a pre-signature back;
 * a restart of the indexer with no duplicate and no gap.
 */
import { expect } from 'chai';
import { Contract, Wallet } from 'ethers';
import pg from 'pg';
import type { Address, OrderData } from '../../../src/domain/events.js';
import { startTestChain, type TestChain } from '../../support/chain.js';
import {
  coincidenceOfWants,
  orderBody,
  sellOrder,
  settleOrders,
  signMatchingPair,
  signTrade,
  type SignedTrade,
} from '../../support/settle.js';
import { startTestService, http, type TestService } from '../../support/service.js';
import { waitFor } from '../../support/wait.js';
import { settlementInterface } from '../../../src/chain/settlement-call.js';

interface ApiOrder {
  status: string;
  executedSellAmount: string;
  executedBuyAmount: string;
  invalidated: boolean;
  onchainUser?: string;
}

describe('chain indexer on the devnet', function () {
  this.timeout(60_000);
  let chain: TestChain;
  let service: TestService;
  let alice: Wallet;
  let sequence = 0;

  before(async () => {
    chain = await startTestChain();
    service = await startTestService({ env: { DEVNET_RPC_URL: chain.rpcUrl } });
    alice = new Wallet(chain.deployment.accounts[0]!.privateKey, chain.provider);
  });
  after(async () => {
    await service?.stop();
    await chain?.stop();
  });

  /** A fresh order (amounts vary so that every UID is new). */
  const order = (sell: Address, buy: Address, sellAmount: bigint, buyAmount: bigint): OrderData =>
    sellOrder({
      sellToken: sell,
      buyToken: buy,
      sellAmount: String(sellAmount + BigInt(++sequence)),
      buyAmount: String(buyAmount),
    });
  const place = async (trade: SignedTrade) => {
    const response = await http('POST', `${service.devnet}/api/v1/orders`, orderBody(trade));
    expect(response.status, response.text).to.equal(201);
  };
  const read = async (uid: string) =>
    (await http<ApiOrder>('GET', `${service.devnet}/api/v1/orders/${uid}`)).body;
  const eventually = (uid: string, check: (o: ApiOrder) => boolean) =>
    waitFor(async () => check(await read(uid)), { timeoutMs: 10_000 });

  /** `signMatchingPair`, placed through the API. */
  async function tradePair(): Promise<[SignedTrade, SignedTrade]> {
    const pair = await signMatchingPair(chain);
    for (const trade of pair) await place(trade);
    return pair;
  }

  /** Alice calls the settlement contract and waits for the receipt. */
  const callSettlement = async (method: string, ...args: unknown[]) => {
    const contract = new Contract(chain.deployment.settlement, settlementInterface, alice);
    await (await contract.getFunction(method)(...args)).wait();
  };

  it('records a settled trade on both orders: executed amounts and fulfilled', async () => {
    const [a, b] = await tradePair();
    await settleOrders(chain, coincidenceOfWants(a, b));
    await eventually(a.uid, (o) => o.status === 'fulfilled');
    const filled = await read(a.uid);
    expect(filled.executedSellAmount).to.equal(a.order.sellAmount);
    expect(filled.executedBuyAmount).to.equal(a.order.buyAmount);
    await eventually(b.uid, (o) => o.status === 'fulfilled');
  });

  it('opens a pre-signed order on setPreSignature(true) and closes it again on (false)', async () => {
    const [x, y] = chain.deployment.tokens.map((t) => t.address);
    const signed = await signTrade(chain, alice, order(x!, y!, 10n ** 17n, 10n ** 17n));
    const presign = { ...signed, signingScheme: 'presign' as const, signature: '0x' as const };
    await place(presign);
    expect((await read(signed.uid)).status).to.equal('presignaturePending');
    await callSettlement('setPreSignature', signed.uid, true);
    await eventually(signed.uid, (o) => o.status === 'open');
    await callSettlement('setPreSignature', signed.uid, false);
    await eventually(signed.uid, (o) => o.status === 'presignaturePending');
  });

  it('cancels an order invalidated on chain for good, showing who did it', async () => {
    const [x, y] = chain.deployment.tokens.map((t) => t.address);
    const signed = await signTrade(chain, alice, order(x!, y!, 10n ** 17n, 10n ** 17n));
    await place(signed);
    await callSettlement('invalidateOrder', signed.uid);
    await eventually(signed.uid, (o) => o.status === 'cancelled');
    const cancelled = await read(signed.uid);
    expect(cancelled.invalidated).to.equal(true);
    expect(cancelled.onchainUser).to.equal(signed.owner);
  });

  it('follows a reorg: the trade and the pre-signature it removed are taken back', async () => {
    const [x, y] = chain.deployment.tokens.map((t) => t.address);
    const presigned = await signTrade(chain, alice, order(x!, y!, 10n ** 17n, 10n ** 17n));
    await place({ ...presigned, signingScheme: 'presign', signature: '0x' });
    const [a, b] = await tradePair();

    const beforeFork = await chain.snapshot();
    await callSettlement('setPreSignature', presigned.uid, true);
    await settleOrders(chain, coincidenceOfWants(a, b));
    await eventually(a.uid, (o) => o.status === 'fulfilled');
    await eventually(presigned.uid, (o) => o.status === 'open');

    // The fork: the blocks with the trade and the pre-signature are replaced by empty ones.
    await chain.revert(beforeFork);
    await chain.mine(3);
    await eventually(a.uid, (o) => o.status === 'open' && o.executedSellAmount === '0');
    await eventually(presigned.uid, (o) => o.status === 'presignaturePending');
    expect((await read(b.uid)).executedBuyAmount).to.equal('0');

    // The same orders can settle on the new branch, and count once.
    await settleOrders(chain, coincidenceOfWants(a, b));
    await eventually(a.uid, (o) => o.status === 'fulfilled');
    expect((await read(a.uid)).executedSellAmount).to.equal(a.order.sellAmount);
  });

  it('resumes after a restart with no duplicate and no gap', async () => {
    const first = await tradePair();
    const settled = [(await settleOrders(chain, coincidenceOfWants(...first))).hash];
    await eventually(first[0].uid, (o) => o.status === 'fulfilled');
    await service.stop();

    // Trades land while no indexer runs.
    const pairs = [];
    for (let i = 0; i < 3; i++) {
      // The chain knows these orders before the API does.
      const pair = await signMatchingPair(chain);
      settled.push((await settleOrders(chain, coincidenceOfWants(...pair))).hash);
      pairs.push(pair);
    }
    service = await startTestService({
      env: { DEVNET_RPC_URL: chain.rpcUrl },
      databaseUrl: service.databaseUrl,
    });
    for (const [a, b] of pairs) {
      await place(a);
      await place(b);
    }
    for (const [a, b] of [first, ...pairs]) {
      await eventually(a.uid, (o) => o.status === 'fulfilled');
      await eventually(b.uid, (o) => o.executedSellAmount !== '0');
    }
    // Exactly one fact per log, though the first ones were seen before the stop.
    const facts = new Map<string, number>();
    const settlements = new Set<string>();
    for (let after: string | null = null; ;) {
      const page = await service.ledger.readAll(after, 1000);
      if (page.length === 0) break;
      for (const e of page) {
        if (e.type !== 'TradeSettled' && e.type !== 'SettlementObserved') continue;
        const { chain: at } = e.data as {
          chain: { blockHash: string; logIndex: number; txHash: string };
        };
        const key = `${at.blockHash}/${at.logIndex}`;
        facts.set(key, (facts.get(key) ?? 0) + 1);
        if (e.type === 'SettlementObserved') settlements.add(at.txHash);
      }
      after = page.at(-1)!.position;
    }
    expect([...facts.values()].every((n) => n === 1)).to.equal(true);
    for (const tx of settled) expect(settlements.has(tx.toLowerCase()), tx).to.equal(true);
  });

  it('counts a pre-signature set on chain before the order reached the API', async () => {
    const [x, y] = chain.deployment.tokens.map((t) => t.address);
    const signed = await signTrade(chain, alice, order(x!, y!, 10n ** 17n, 10n ** 17n));
    await callSettlement('setPreSignature', signed.uid, true);
    // The chain's facts live in their own stream: the placement still finds its stream new.
    await place({ ...signed, signingScheme: 'presign', signature: '0x' });
    await eventually(signed.uid, (o) => o.status === 'open');
  });

  /** The block the service's devnet indexer has recorded up to. */
  const cursorOf = async (of: TestService) => {
    const client = new pg.Client({ connectionString: of.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: string }>(
        "SELECT block_number AS n FROM chain.indexer_cursors WHERE network = 'devnet'",
      );
      return Number(rows[0]?.n ?? -1);
    } finally {
      await client.end();
    }
  };

  it('waits for the configured confirmations before it records a block', async () => {
    const patient = await startTestService({
      env: { DEVNET_RPC_URL: chain.rpcUrl, DEVNET_CONFIRMATIONS: '2' },
    });
    try {
      const [x, y] = chain.deployment.tokens.map((t) => t.address);
      const signed = await signTrade(chain, alice, order(x!, y!, 10n ** 17n, 10n ** 17n));
      const url = `${patient.devnet}/api/v1/orders`;
      expect((await http('POST', url, orderBody(signed))).status).to.equal(201);
      const status = async () => (await http<ApiOrder>('GET', `${url}/${signed.uid}`)).body.status;
      await callSettlement('invalidateOrder', signed.uid);
      const invalidatedIn = await chain.provider.getBlockNumber();
      await chain.mine(1);
      // With one confirmation the indexer goes up to the block before, and stops there.
      await waitFor(async () => (await cursorOf(patient)) === invalidatedIn - 1, {
        timeoutMs: 10_000,
      });
      const onChain = await patient.ledger.readStream(`onchain-devnet-${signed.uid}`);
      expect(onChain).to.have.length(0);
      expect(await status()).to.equal('open');
      await chain.mine(1);
      await waitFor(async () => (await status()) === 'cancelled', { timeoutMs: 10_000 });
    } finally {
      await patient.stop();
    }
  });
});
