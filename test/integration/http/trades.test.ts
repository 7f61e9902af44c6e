/**
 * GET /trades (v2 and the deprecated v1) and GET /transactions/{txHash}/orders end to end on a
 * devnet: two demo accounts place opposite orders through the API, the allow-listed solver
 * settles them on chain as a coincidence of wants, the indexer records the real Trade logs, and
 * the endpoints show them with the exact amounts and the receipt's transaction hash. Every 200
 * body is checked against the OpenAPI spec, with no deviation needed. The spec documents no JSON
 * body for these routes' 400s, so error bodies are checked for the `{errorType, description}`
 * envelope (reference §0) instead.
 */
import { expect } from 'chai';
import { Wallet, type TransactionReceipt } from 'ethers';
import { settlementInterface } from '../../../src/chain/settlement-call.js';
import { startTestChain, type TestChain } from '../../support/chain.js';
import { expectMatchesResponse } from '../../support/openapi.js';
import {
  coincidenceOfWants,
  orderBody,
  settleOrders,
  signMatchingPair,
  type SignedTrade,
} from '../../support/settle.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import { waitFor } from '../../support/wait.js';

interface ApiTrade {
  blockNumber: number;
  logIndex: number;
  orderUid: string;
  owner: string;
  sellToken: string;
  buyToken: string;
  sellAmount: string;
  sellAmountBeforeFees: string;
  buyAmount: string;
  txHash: string | null;
  executedProtocolFees: unknown[];
}

interface ApiOrder {
  uid: string;
  status: string;
  [field: string]: unknown;
}

describe('integration/http: trades and the orders of a transaction', function () {
  this.timeout(120_000);
  let chain: TestChain;
  let service: TestService;
  let alice: Wallet;

  before(async () => {
    chain = await startTestChain();
    service = await startTestService({ env: { DEVNET_RPC_URL: chain.rpcUrl } });
    alice = new Wallet(chain.deployment.accounts[0]!.privateKey, chain.provider);
  });
  after(async () => {
    await service?.stop();
    await chain?.stop();
  });

  const get = <T>(path: string) => http<T>('GET', `${service.devnet}${path}`);

  /** GET /api/v2/trades with a query string; the 200 body checked against the spec. */
  async function tradesV2(query: string): Promise<ApiTrade[]> {
    const response = await get<ApiTrade[]>(`/api/v2/trades?${query}`);
    expect(response.status, response.text).to.equal(200);
    expectMatchesResponse('get', '/api/v2/trades', 200, response.body);
    return response.body;
  }

  async function tradesV1(query: string): Promise<ApiTrade[]> {
    const response = await get<ApiTrade[]>(`/api/v1/trades?${query}`);
    expect(response.status, response.text).to.equal(200);
    expectMatchesResponse('get', '/api/v1/trades', 200, response.body);
    return response.body;
  }

  async function ordersInTx(txHash: string): Promise<ApiOrder[]> {
    const response = await get<ApiOrder[]>(`/api/v1/transactions/${txHash}/orders`);
    expect(response.status, response.text).to.equal(200);
    expectMatchesResponse('get', '/api/v1/transactions/{txHash}/orders', 200, response.body);
    return response.body;
  }

  async function expectError(path: string, errorType: string | null): Promise<void> {
    const response = await get<{ errorType: string; description: string }>(path);
    expect(response.status, `${path}: ${response.text}`).to.equal(400);
    expect(response.body.description, path).to.be.a('string');
    if (errorType) expect(response.body.errorType, path).to.equal(errorType);
    else expect(response.body.errorType, path).to.be.a('string');
  }

  /** `signMatchingPair`, placed through the API. */
  async function placePair(): Promise<[SignedTrade, SignedTrade]> {
    const pair = await signMatchingPair(chain);
    for (const trade of pair) {
      const response = await http('POST', `${service.devnet}/api/v1/orders`, orderBody(trade));
      expect(response.status, response.text).to.equal(201);
    }
    return pair;
  }

  /** The Trade logs of a settlement receipt: order UID → log index. */
  function tradeLogIndexes(receipt: TransactionReceipt): Map<string, number> {
    const indexes = new Map<string, number>();
    for (const log of receipt.logs) {
      if (log.address.toLowerCase() !== chain.deployment.settlement) continue;
      const parsed = settlementInterface.parseLog(log);
      if (parsed?.name === 'Trade') indexes.set(String(parsed.args.orderUid), log.index);
    }
    return indexes;
  }

  /** What the API must show for `trade` settled in `receipt`: it executed in full, fee 0. */
  function expectedTrade(trade: SignedTrade, receipt: TransactionReceipt): ApiTrade {
    const logIndex = tradeLogIndexes(receipt).get(trade.uid);
    expect(logIndex, `Trade log of ${trade.uid}`).to.be.a('number');
    return {
      blockNumber: receipt.blockNumber,
      logIndex: logIndex!,
      orderUid: trade.uid,
      owner: trade.owner,
      sellToken: trade.order.sellToken,
      buyToken: trade.order.buyToken,
      sellAmount: trade.order.sellAmount,
      sellAmountBeforeFees: trade.order.sellAmount,
      buyAmount: trade.order.buyAmount,
      txHash: receipt.hash.toLowerCase(),
      executedProtocolFees: [],
    };
  }

  let first: [SignedTrade, SignedTrade];
  let firstReceipt: TransactionReceipt;
  let second: [SignedTrade, SignedTrade];
  let secondReceipt: TransactionReceipt;

  it('shows both trades of a settlement by owner and by order UID, with exact amounts', async () => {
    first = await placePair();
    firstReceipt = await settleOrders(chain, coincidenceOfWants(...first));
    const [a, b] = first;
    await waitFor(
      async () =>
        (await tradesV2(`owner=${a.owner}`)).length === 1 &&
        (await tradesV2(`owner=${b.owner}`)).length === 1,
      { timeoutMs: 10_000, description: 'both trades by owner' },
    );
    for (const trade of first) {
      const expected = expectedTrade(trade, firstReceipt);
      expect(await tradesV2(`owner=${trade.owner}`)).to.deep.equal([expected]);
      expect(await tradesV2(`orderUid=${trade.uid}`)).to.deep.equal([expected]);
      expect(await tradesV1(`orderUid=${trade.uid}`)).to.deep.equal([expected]);
    }
    // Path-style hex: without 0x and in upper case, as the reference accepts.
    const bare = first[0].owner.slice(2).toUpperCase();
    expect(await tradesV2(`owner=${bare}`)).to.have.length(1);
  });

  it('lists the orders a transaction settled, in full', async () => {
    // The orders read model follows the same logs on its own; wait until it has them too.
    let orders: ApiOrder[] = [];
    await waitFor(
      async () => {
        orders = await ordersInTx(firstReceipt.hash);
        return orders.length === 2 && orders.every((o) => o.status === 'fulfilled');
      },
      { timeoutMs: 10_000, description: 'both orders fulfilled' },
    );
    // In the order of their Trade logs.
    const logIndexes = tradeLogIndexes(firstReceipt);
    const byLog = first.map((t) => t.uid).sort((x, y) => logIndexes.get(x)! - logIndexes.get(y)!);
    expect(orders.map((o) => o.uid)).to.deep.equal(byLog);
    for (const order of orders) expect(order).to.not.have.property('quote');
    expect(await ordersInTx(`0x${'5'.repeat(64)}`)).to.deep.equal([]);
  });

  it('pages newest first on v2 and lists everything on v1', async () => {
    second = await placePair();
    secondReceipt = await settleOrders(chain, coincidenceOfWants(...second));
    const owner = alice.address.toLowerCase();
    await waitFor(async () => (await tradesV2(`owner=${owner}`)).length === 2, {
      timeoutMs: 10_000,
      description: "alice's second trade",
    });
    const newest = expectedTrade(second[0], secondReceipt);
    const older = expectedTrade(first[0], firstReceipt);
    expect(await tradesV2(`owner=${owner}`)).to.deep.equal([newest, older]);
    expect(await tradesV2(`owner=${owner}&limit=1`)).to.deep.equal([newest]);
    expect(await tradesV2(`owner=${owner}&offset=1&limit=1`)).to.deep.equal([older]);
    expect(await tradesV2(`owner=${owner}&offset=2`)).to.deep.equal([]);
    // v1 has no pagination: offset and limit are not read (reference §2).
    expect(await tradesV1(`owner=${owner}&limit=0&offset=5`)).to.deep.equal([newest, older]);
  });

  it('rejects a filter that is not exactly one of owner and orderUid', async () => {
    const [a] = first;
    for (const version of ['v1', 'v2']) {
      await expectError(`/api/${version}/trades`, 'InvalidTradeFilter');
      await expectError(
        `/api/${version}/trades?owner=${a.owner}&orderUid=${a.uid}`,
        'InvalidTradeFilter',
      );
    }
  });

  it('rejects a limit outside 1..1000 and malformed parameters with 400, never a 500', async () => {
    const { owner, uid } = first[0];
    for (const limit of ['0', '1001']) {
      await expectError(`/api/v2/trades?owner=${owner}&limit=${limit}`, 'InvalidLimit');
    }
    expect(await tradesV2(`owner=${owner}&limit=1000`)).to.have.length(2);
    for (const path of [
      `/api/v2/trades?owner=${owner}&limit=-1`,
      `/api/v2/trades?owner=${owner}&limit=ten`,
      `/api/v2/trades?owner=${owner}&offset=-1`,
      `/api/v2/trades?owner=0x1234`,
      `/api/v2/trades?owner=${owner}&owner=${owner}`,
      `/api/v2/trades?orderUid=${uid.slice(0, -2)}`,
      `/api/v2/trades?orderUid=zz${uid.slice(4)}`,
      `/api/v1/trades?owner=not-an-address`,
      `/api/v1/transactions/0x1234/orders`,
      `/api/v1/transactions/${'g'.repeat(64)}/orders`,
    ]) {
      await expectError(path, null);
    }
  });
});
