/**
 * Quotes from solvers: `POST /quote` asks the solvers marked for quoting with a one-order auction
 * (`id: null`), takes the best answer, its gas from the solution and the solver named in the
 * stored quote; with no answer, the pools price it as before.
 */
import { expect } from 'chai';
import { Wallet } from 'ethers';
import type { Auction } from '../../../src/auction/solver-api/types.js';
import type { Address } from '../../../src/domain/events.js';
import { startTestChain, type TestChain } from '../../support/chain.js';
import { storedQuote } from '../../support/quote-store.js';
import { CHAIN_ID, signOrder } from '../../support/signing.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import { expectSolverApi } from '../../support/solver-engine-openapi.js';
import { startSolverServer, type SolverServer } from '../../support/solver-server.js';

const E18 = 10n ** 18n;
const QUOTER: Address = '0x000000000000000000000000000000000000a11c';
const OTHER: Address = '0x000000000000000000000000000000000000b0b0';
/** How much more than the pools the quoting engine gives, in basis points. */
const BETTER_BPS = 100n;
const QUOTE_GAS = 123_456;

interface QuoteAnswer {
  quote: { buyAmount: string; sellAmount: string; gasAmount: string };
  id: number;
}

describe('quotes from solvers', function () {
  this.timeout(60_000);

  let chain: TestChain;
  let service: TestService;
  let quoter: SolverServer;
  let other: SolverServer;
  /** What the quoting engine gives for the sell amount it was asked: set by each test. */
  let gives: bigint | null = null;

  /** Its private liquidity: the trade as one custom call stating what goes in and comes out. */
  function answer(auction: Auction): unknown {
    const [order] = auction.orders;
    if (auction.id !== null || order === undefined || gives === null) return { solutions: [] };
    const sold = BigInt(order.sellAmount);
    return {
      solutions: [
        {
          id: 0,
          prices: { [order.sellToken]: gives.toString(), [order.buyToken]: sold.toString() },
          trades: [{ kind: 'fulfillment', order: order.uid, executedAmount: sold.toString() }],
          interactions: [
            {
              kind: 'custom',
              internalize: false,
              target: QUOTER,
              value: '0',
              callData: '0x',
              allowances: [],
              inputs: [{ token: order.sellToken, amount: sold.toString() }],
              outputs: [{ token: order.buyToken, amount: gives.toString() }],
            },
          ],
          gas: QUOTE_GAS,
        },
      ],
    };
  }

  before(async () => {
    chain = await startTestChain();
    quoter = await startSolverServer({ respond: answer });
    other = await startSolverServer({ respond: () => ({ solutions: [] }) });
    service = await startTestService({
      env: {
        DEVNET_RPC_URL: chain.rpcUrl,
        BUILTIN_SOLVER: 'false',
        EXTERNAL_SOLVERS: JSON.stringify([
          { name: 'quoter', url: quoter.url, address: QUOTER, quote: true },
          { name: 'other', url: other.url, address: OTHER },
        ]),
      },
    });
  });

  after(async () => {
    await service?.stop();
    await Promise.all([quoter?.close(), other?.close()]);
    await chain?.stop();
  });

  const quote = async () => {
    const { status, body, text } = await http<QuoteAnswer>(
      'POST',
      `${service.devnet}/api/v1/quote`,
      {
        sellToken: chain.deployment.weth.address,
        buyToken: chain.deployment.tokens.find((t) => t.symbol === 'DUSD')!.address,
        from: Wallet.createRandom().address,
        kind: 'sell',
        sellAmountAfterFee: E18.toString(),
      },
    );
    expect(status, text).to.equal(200);
    return body;
  };

  const storedSolver = async (id: number) =>
    (await storedQuote(service.databaseUrl, 'devnet', id))!.solver;

  it('prices by the pools when no solver answers, naming no solver', async () => {
    gives = null;
    const pools = await quote();
    expect(await storedSolver(pools.id)).to.equal(`0x${'00'.repeat(20)}`);
    // Asked all the same: an auction of one order with a null id, as the published API says.
    const asked = quoter.requests.filter((r) => r.id === null);
    expect(asked.length).to.be.greaterThan(0);
    for (const request of asked) expectSolverApi('Auction', request);
    expect(asked.at(-1)!.orders).to.have.length(1);
    expect(asked.at(-1)!.orders[0]).to.include({ class: 'market', signingScheme: 'eip1271' });
  });

  it('takes the quoting solver’s better price and gas, and names it in the stored quote', async () => {
    gives = null;
    const pools = BigInt((await quote()).quote.buyAmount);
    gives = (pools * (10_000n + BETTER_BPS)) / 10_000n;
    const fromSolver = await quote();
    expect(fromSolver.quote.buyAmount).to.equal(gives.toString());
    expect(fromSolver.quote.gasAmount).to.equal(String(QUOTE_GAS));
    expect(await storedSolver(fromSolver.id)).to.equal(QUOTER);
    // A solver not marked for quoting is never asked to price a trade.
    expect(other.requests.filter((r) => r.id === null)).to.deep.equal([]);
  });

  it('prices an order placed without a stored quote by the quoting solver too', async () => {
    const weth = chain.deployment.weth.address;
    const wallet = Wallet.createRandom();
    await chain.fund(wallet.address as Address, weth, E18);
    gives = 2_000n * E18;
    const signed = await signOrder(wallet, CHAIN_ID.devnet, {
      sellToken: weth,
      buyToken: chain.deployment.tokens.find((t) => t.symbol === 'DUSD')!.address,
      sellAmount: String(E18 / 2n),
      buyAmount: String(900n * E18),
    });
    const placed = await http('POST', `${service.devnet}/api/v1/orders`, signed.body);
    expect(placed.status, placed.text).to.equal(201);
    const read = await http<{ quote?: Record<string, unknown> }>(
      'GET',
      `${service.devnet}/api/v1/orders/${signed.uid}`,
    );
    expect(read.body.quote).to.include({
      solver: QUOTER,
      gasAmount: String(QUOTE_GAS),
      buyAmount: gives.toString(),
    });
  });
});
