/**
 * POST /api/v1/quote and GET /api/v1/token/{token}/native_price on the devnet, priced from its
 * Uniswap-V2 pools (reference §7, the seed's error codes), and orders linked to their quotes.
 */
import { expect } from 'chai';
import pg from 'pg';
import type { Address } from '../../../src/domain/events.js';
import { sharedTestChain, type TestChain } from '../../support/chain.js';
import { expectMatchesResponse } from '../../support/openapi.js';
import { fundedWallet } from '../../support/owners.js';
import { freshDatabase } from '../../support/postgres.js';
import { storedQuote } from '../../support/quote-store.js';
import {
  controlledClock,
  http,
  startTestService,
  type TestService,
} from '../../support/service.js';
import { CHAIN_ID, newWallet, signOrder, type OrderParams } from '../../support/signing.js';
import { waitFor } from '../../support/wait.js';

interface Quote {
  quote: Record<string, unknown> & {
    sellAmount: string;
    buyAmount: string;
    feeAmount: string;
    gasAmount: string;
    gasPrice: string;
    sellTokenPrice: string;
  };
  from: string;
  expiration: string;
  id: number | null;
  verified: boolean;
}
interface ErrorBody {
  errorType: string;
  description: string;
  data?: { fee_amount: string };
}

const DENIED = `0x${'de'.repeat(20)}`;

describe('HTTP: quotes and native prices', function () {
  this.timeout(60_000);
  let service: TestService;
  let chain: TestChain;
  let weth: Address;
  let dusd: Address;
  let ddai: Address;
  const from = newWallet().address.toLowerCase();

  before(async () => {
    chain = await sharedTestChain();
    service = await startTestService({ env: { DENY_LIST_ACCOUNTS: DENIED } });
    weth = chain.deployment.weth.address;
    const symbol = (s: string) => chain.deployment.tokens.find((t) => t.symbol === s)!.address;
    dusd = symbol('DUSD');
    ddai = symbol('DDAI');
  });
  after(() => service?.stop());

  const quote = (body: Record<string, unknown>) =>
    http<Quote & ErrorBody>('POST', `${service.devnet}/api/v1/quote`, {
      sellToken: weth,
      buyToken: dusd,
      from,
      kind: 'sell',
      sellAmountBeforeFee: String(10n ** 18n),
      ...body,
    });

  it('quotes a sell before the fee: the fee comes off the sell amount, priced from the pools', async () => {
    const response = await quote({});
    expect(response.status, response.text).to.equal(200);
    expectMatchesResponse('post', '/api/v1/quote', 200, response.body);
    const { quote: q } = response.body;
    expect(BigInt(q.sellAmount) + BigInt(q.feeAmount)).to.equal(10n ** 18n);
    const fee = Math.ceil((Number(q.gasAmount) * Number(q.gasPrice)) / Number(q.sellTokenPrice));
    expect(Number(q.feeAmount)).to.be.closeTo(fee, fee * 1e-9 + 1);
    // 1 WETH buys a little under 3,000 DUSD from the devnet's pool (0.3% fee, price impact).
    expect(Number(q.buyAmount) / 1e18).to.be.within(2900, 3000);
    expect(q).to.include({ kind: 'sell', partiallyFillable: false, receiver: null });
    expect(q.sellTokenPrice).to.equal('1');
    expect(response.body.from).to.equal(from);
    expect(response.body.id).to.be.a('number');
    expect(response.body.verified).to.equal(false);
    const lifetime = Date.parse(response.body.expiration) - Date.now();
    expect(lifetime).to.be.within(0, 61_000);
  });

  it('keeps the sell amount of a sell after the fee, and the buy amount of a buy', async () => {
    const after = await quote({ sellAmountBeforeFee: undefined, sellAmountAfterFee: '5000000' });
    expect(after.body.quote.sellAmount).to.equal('5000000');
    const buy = await quote({
      kind: 'buy',
      sellAmountBeforeFee: undefined,
      buyAmountAfterFee: String(3000n * 10n ** 18n),
      sellToken: ddai,
    });
    expect(buy.status, buy.text).to.equal(200);
    expect(buy.body.quote.buyAmount).to.equal(String(3000n * 10n ** 18n));
    // DDAI reaches DUSD only through WETH: about 3,000 DDAI plus two pool fees.
    expect(Number(buy.body.quote.sellAmount) / 1e18).to.be.within(3000, 3100);
  });

  it('answers the fee when the sell amount does not cover it (SellAmountDoesNotCoverFee)', async () => {
    const response = await quote({ sellAmountBeforeFee: '1' });
    expect(response.status).to.equal(400);
    expect(response.body.errorType).to.equal('SellAmountDoesNotCoverFee');
    expect(response.body.data?.fee_amount).to.match(/^0x[0-9a-f]+$/);
  });

  it("answers 400 NoLiquidity for a token without a pool (the seed, over the reference's 404)", async () => {
    const response = await quote({ buyToken: newWallet().address });
    expect(response.status).to.equal(400);
    expect(response.body.errorType).to.equal('NoLiquidity');
  });

  it('checks validTo as a market order: InsufficientValidTo when past or too soon (not OrderExpired)', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const validTo of [now - 10, now + 30]) {
      const response = await quote({ validTo });
      expect(response.status, String(validTo - now)).to.equal(400);
      expect(response.body.errorType, String(validTo - now)).to.equal('InsufficientValidTo');
    }
    const late = await quote({ validTo: now + 4 * 3600 });
    expect(late.body.errorType).to.equal('ExcessiveValidTo');
  });

  it('refuses malformed requests with InvalidParameter, never a 500', async () => {
    const cases: Record<string, unknown>[] = [
      { from: undefined },
      { sellToken: undefined },
      { buyToken: '0x1234' },
      { sellAmountBeforeFee: '0x10' },
      { sellAmountBeforeFee: 'ten' },
      { kind: 'swap' },
      { sellAmountBeforeFee: '0' },
      { validTo: 2_000_000_000, validFor: 60 },
      { kind: 'buy' },
    ];
    for (const body of cases) {
      const response = await quote(body);
      expect(response.status, JSON.stringify(body)).to.equal(400);
      expect(response.body.errorType, JSON.stringify(body)).to.equal('InvalidParameter');
    }
  });

  it('refuses deny-listed accounts (403 Forbidden) and quotes nothing then', async () => {
    const response = await quote({ from: DENIED });
    expect(response.status).to.equal(403);
    expect(response.body.errorType).to.equal('Forbidden');
  });

  it('refuses a deny-listed token (UnsupportedToken)', async () => {
    const strict = await startTestService({ env: { DENY_LIST_TOKENS: dusd } });
    try {
      const response = await http<ErrorBody>('POST', `${strict.devnet}/api/v1/quote`, {
        sellToken: weth,
        buyToken: dusd,
        from,
        kind: 'sell',
        sellAmountBeforeFee: String(10n ** 18n),
      });
      expect(response.status).to.equal(400);
      expect(response.body.errorType).to.equal('UnsupportedToken');
    } finally {
      await strict.stop();
    }
  });

  it('limits quotes per client (429 RateLimited with Retry-After)', async () => {
    // The service's clock stands still, so the budget cannot refill between the requests.
    const clock = controlledClock();
    const limited = await startTestService({
      env: { RATE_LIMIT_QUOTES_PER_SECOND: '2' },
      clock,
    });
    try {
      const asker = newWallet().address;
      const ask = () =>
        http<ErrorBody>('POST', `${limited.devnet}/api/v1/quote`, {
          sellToken: weth,
          buyToken: dusd,
          from: asker,
          kind: 'sell',
          sellAmountBeforeFee: String(10n ** 18n),
        });
      expect((await ask()).status).to.equal(200);
      expect((await ask()).status).to.equal(200);
      const refused = await ask();
      expect(refused.status).to.equal(429);
      expect(refused.body.errorType).to.equal('RateLimited');
      expect(Number(refused.headers.get('retry-after'))).to.be.at.least(1);
      clock.advance(1);
      expect((await ask()).status).to.equal(200);
    } finally {
      await limited.stop();
    }
  });

  it('does not store fast quotes', async () => {
    const response = await quote({ priceQuality: 'fast' });
    expect(response.body.id).to.equal(null);
    expect(response.body.expiration).to.equal('1970-01-01T00:00:00Z');
  });

  /** What the SDK signs for a sell quote (cow-sdk-client.md): the amount before the fee, fee 0. */
  const sdkSellAmount = (q: Quote['quote']) => String(BigInt(q.sellAmount) + BigInt(q.feeAmount));
  /** The SDK's default slippage: 50 bps off the quoted buy amount. */
  const withSlippage = (buyAmount: string) => String((BigInt(buyAmount) * 9950n) / 10_000n);

  it('links an order signed as the SDK signs it to its quote, by id or as the best matching one', async () => {
    const wallet = await fundedWallet();
    const owner = wallet.address.toLowerCase();
    const q = (await quote({ from: owner })).body;
    let validTo = Math.floor(Date.now() / 1000) + 600;
    const place = async (sellAmount: string, quoteId: number | null) => {
      const fields = { sellToken: weth, buyToken: dusd, sellAmount, validTo: ++validTo };
      const signed = await signOrder(
        wallet,
        CHAIN_ID.devnet,
        { ...fields, buyAmount: withSlippage(q.quote.buyAmount) },
        'eip712',
        { quoteId },
      );
      const placed = await http('POST', `${service.devnet}/api/v1/orders`, signed.body);
      expect(placed.status, placed.text).to.equal(201);
      const read = await http<{ quote?: Record<string, unknown> }>(
        'GET',
        `${service.devnet}/api/v1/orders/${signed.uid}`,
      );
      return read.body.quote;
    };
    const sell = BigInt(q.quote.sellAmount);
    for (const quoteId of [q.id, null]) {
      // The linked quote is scaled to the order's sell amount at the quoted price (reference §7
      // step 9): the whole amount before the fee, and the quote's buy amount for it.
      expect(await place(sdkSellAmount(q.quote), quoteId)).to.include({
        sellAmount: sdkSellAmount(q.quote),
        buyAmount: String((BigInt(q.quote.buyAmount) * (sell + BigInt(q.quote.feeAmount))) / sell),
        feeAmount: q.quote.feeAmount,
        gasAmount: q.quote.gasAmount,
        sellTokenPrice: q.quote.sellTokenPrice,
      });
    }
    // An order signed for the amount after the fee, as batchbook's own tests once did, links
    // too, at the quote's own amounts.
    expect(await place(q.quote.sellAmount, q.id)).to.include({
      sellAmount: q.quote.sellAmount,
      buyAmount: q.quote.buyAmount,
    });
  });

  it("caps an owner's limit orders outside the market (TooManyLimitOrders)", async () => {
    const capped = await startTestService({ env: { MAX_LIMIT_ORDERS_PER_OWNER: '1' } });
    try {
      const wallet = await fundedWallet();
      const owner = wallet.address.toLowerCase();
      const q = (
        await http<Quote>('POST', `${capped.devnet}/api/v1/quote`, {
          sellToken: weth,
          buyToken: dusd,
          from: owner,
          kind: 'sell',
          sellAmountBeforeFee: String(10n ** 18n),
        })
      ).body;
      let validTo = Math.floor(Date.now() / 1000) + 600;
      // Signed as the SDK signs a quote, so the cap applies to the orders integrators place.
      const place = async (buyAmount: bigint) => {
        const fields = { sellToken: weth, buyToken: dusd, sellAmount: sdkSellAmount(q.quote) };
        const signed = await signOrder(
          wallet,
          CHAIN_ID.devnet,
          { ...fields, buyAmount: String(buyAmount), validTo: ++validTo },
          'eip712',
          { quoteId: q.id },
        );
        return http<ErrorBody>('POST', `${capped.devnet}/api/v1/orders`, signed.body);
      };
      const greedy = BigInt(q.quote.buyAmount) * 2n;
      const first = await place(greedy);
      expect(first.status, JSON.stringify(first.body)).to.equal(201);
      const second = await place(greedy);
      expect(second.status).to.equal(400);
      expect(second.body.errorType).to.equal('TooManyLimitOrders');
      // An order asking exactly the quote's buy amount (what the fee leaves) is within the
      // market: the fee counts once, as the quote scaled to the order's sell amount counts it.
      const fair = await place(BigInt(q.quote.buyAmount));
      expect(fair.status, JSON.stringify(fair.body)).to.equal(201);
    } finally {
      await capped.stop();
    }
  });

  it('keeps quotes out of the ledger and the read models until they expire; an order keeps its own', async () => {
    // A database an older batchbook ran: its quotes read model is there, and its checkpoint.
    const databaseUrl = await freshDatabase();
    const older = new pg.Client({ connectionString: databaseUrl });
    await older.connect();
    const clock = controlledClock();
    let swept: TestService | undefined;
    try {
      await older.query(`CREATE SCHEMA read;
        CREATE TABLE read.quotes (network text NOT NULL, id bigint NOT NULL,
          sell_token text NOT NULL, buy_token text NOT NULL, kind text NOT NULL,
          signing_scheme text NOT NULL, onchain_order boolean NOT NULL,
          expiration timestamptz NOT NULL, quote jsonb NOT NULL, PRIMARY KEY (network, id));
        CREATE TABLE read.projection_checkpoints (
          projector text PRIMARY KEY, version integer NOT NULL, position text);
        INSERT INTO read.projection_checkpoints VALUES ('quotes', 1, NULL)`);
      swept = await startTestService({
        databaseUrl,
        env: { QUOTE_SWEEP_INTERVAL_MS: '20' },
        clock,
      });
      const { rows } = await older.query(`SELECT to_regclass('read.quotes') AS quotes,
        (SELECT count(*)::int FROM read.projection_checkpoints WHERE projector = 'quotes') AS rows`);
      expect(rows).to.deep.equal([{ quotes: null, rows: 0 }]);

      const wallet = await fundedWallet();
      const asked = await http<Quote>('POST', `${swept.devnet}/api/v1/quote`, {
        sellToken: weth,
        buyToken: dusd,
        from: wallet.address,
        kind: 'sell',
        sellAmountBeforeFee: String(10n ** 18n),
      });
      const q = asked.body;
      expect(await storedQuote(databaseUrl, 'devnet', q.id!)).to.include({
        id: q.id,
        expiration: q.expiration,
      });
      const signed = await signOrder(
        wallet,
        CHAIN_ID.devnet,
        {
          sellToken: weth,
          buyToken: dusd,
          sellAmount: sdkSellAmount(q.quote),
          buyAmount: withSlippage(q.quote.buyAmount),
        },
        'eip712',
        { quoteId: q.id, nowSeconds: clock.nowSeconds() },
      );
      const placed = await http('POST', `${swept.devnet}/api/v1/orders`, signed.body);
      expect(placed.status, placed.text).to.equal(201);

      clock.advance(61);
      await waitFor(async () => (await storedQuote(databaseUrl, 'devnet', q.id!)) === null, {
        description: 'the expired quote swept out of the store',
      });
      const read = await http<{ quote?: Record<string, unknown> }>(
        'GET',
        `${swept.devnet}/api/v1/orders/${signed.uid}`,
      );
      expect(read.body.quote).to.include({ feeAmount: q.quote.feeAmount });
      const types = (await swept.ledger.readAll(null, 10_000)).map((event) => event.type);
      expect(types).to.include('OrderPlaced').and.not.to.include('QuoteCreated');
    } finally {
      await swept?.stop();
      await older.end();
    }
  });

  it('quotes an order placed without a stored quote afresh, and counts it against the cap when outside the market', async () => {
    const capped = await startTestService({ env: { MAX_LIMIT_ORDERS_PER_OWNER: '1' } });
    try {
      const wallet = await fundedWallet();
      let validTo = Math.floor(Date.now() / 1000) + 600;
      // No quote was asked for any of these amounts: each order is priced when it is placed.
      const place = async (fields: Partial<OrderParams>) => {
        const signed = await signOrder(wallet, CHAIN_ID.devnet, {
          sellToken: weth,
          buyToken: dusd,
          validTo: ++validTo,
          ...fields,
        });
        const placed = await http<ErrorBody>('POST', `${capped.devnet}/api/v1/orders`, signed.body);
        const read = await http<{ quote?: Record<string, unknown> }>(
          'GET',
          `${capped.devnet}/api/v1/orders/${signed.uid}`,
        );
        return { placed, quote: read.body.quote };
      };
      const tenth = String(10n ** 17n);
      // About 300 DUSD at the pools' price: 200 is within the market, 3,000 far outside it.
      const fair = await place({ sellAmount: tenth, buyAmount: String(200n * 10n ** 18n) });
      expect(fair.placed.status, fair.placed.text).to.equal(201);
      expect(fair.quote, 'the fresh quote, linked').to.include({ sellAmount: tenth });
      expect(Number(fair.quote!.buyAmount) / 1e18).to.be.within(250, 300);

      const greedy = await place({ sellAmount: tenth, buyAmount: String(3000n * 10n ** 18n) });
      expect(greedy.placed.status, greedy.placed.text).to.equal(201);
      for (const fields of [
        { sellAmount: String(2n * 10n ** 17n), buyAmount: String(6000n * 10n ** 18n) },
        // A buy order asking 3,000 DUSD for 0.1 WETH.
        { kind: 'buy', sellAmount: tenth, buyAmount: String(3000n * 10n ** 18n) },
      ] satisfies Partial<OrderParams>[]) {
        const refused = await place(fields);
        expect(refused.placed.status, JSON.stringify(fields)).to.equal(400);
        expect(refused.placed.body.errorType).to.equal('TooManyLimitOrders');
      }

      // A limit order no one can price (its buy token has no pool) is placed without a quote.
      const unpriced = await place({ sellAmount: tenth, buyToken: newWallet().address });
      expect(unpriced.placed.status, unpriced.placed.text).to.equal(201);
      expect(unpriced.quote).to.equal(undefined);
    } finally {
      await capped.stop();
    }
  });

  describe('GET /api/v1/token/{token}/native_price', () => {
    const price = (token: string) =>
      http<{ price: number } & ErrorBody>(
        'GET',
        `${service.devnet}/api/v1/token/${token}/native_price`,
      );

    it('prices the wrapped native token at 1 and a demo token from its pool', async () => {
      const wethPrice = await price(weth);
      expect(wethPrice.body).to.deep.equal({ price: 1 });
      expectMatchesResponse('get', '/api/v1/token/{token}/native_price', 200, wethPrice.body);
      const dusdPrice = await price(dusd.slice(2).toUpperCase());
      expect(dusdPrice.status).to.equal(200);
      expect(dusdPrice.body.price).to.be.closeTo(1 / 3000, 1 / 3000 / 50);
    });

    it('answers 404 NoLiquidity for an unpriced token and 400 for a malformed one', async () => {
      const unpriced = await price(newWallet().address);
      expect(unpriced.status).to.equal(404);
      expect(unpriced.body.errorType).to.equal('NoLiquidity');
      expect((await price('0x1234')).status).to.equal(400);
    });
  });
});
