/**
 * The `Auction` solver engines are sent: valid against the published solver engine API (as the
 * reference driver writes it, test/support/solver-engine-openapi.ts), for orders of every
 * signing scheme, with hooks, receivers, earlier fills and native ETH bought; what is left of each
 * order, the tokens' facts and the pools as the reference driver sends them.
 */
import { expect } from 'chai';
import { auctionFor, type AuctionContent } from '../../../src/auction/solver-api/auction.js';
import type { Address, AuctionOrder, SigningScheme } from '../../../src/domain/events.js';
import { NATIVE_TOKEN_MARKER } from '../../../src/domain/networks.js';
import { expectSolverApi } from '../../support/solver-engine-openapi.js';
import { auctionOrder } from '../../support/auction-orders.js';
import { DUSD, E18, WETH, devnetPool } from '../domain/solver/fixtures.js';

const RECEIVER: Address = '0x2222222222222222222222222222222222222222';
const ROUTER: Address = '0x00000000000000000000000000000000000000e1';
const HOOK = {
  target: '0x60bf78233f48ec42ee3f101b9a05ec7878728006' as Address,
  value: '0',
  callData: '0x1234' as const,
};

const SCHEMES: SigningScheme[] = ['eip712', 'ethsign', 'presign', 'eip1271'];

function content(orders: AuctionOrder[], id: number | null = 42): AuctionContent {
  return {
    id,
    deadline: new Date('2026-11-27T12:00:05.000Z'),
    orders,
    referencePrices: {
      [WETH]: E18.toString(),
      [DUSD]: '333333333333333',
      [NATIVE_TOKEN_MARKER]: E18.toString(),
    },
    tokens: new Map([
      [WETH, { decimals: 18, symbol: 'WETH', availableBalance: 7n }],
      [DUSD, { decimals: null, symbol: null, availableBalance: 0n }],
    ]),
    trusted: new Set([WETH]),
    liquidity: [{ id: '0', pool: { ...devnetPool, router: ROUTER } }],
    effectiveGasPrice: 1_500_000_000n,
    wrappedNative: WETH,
  };
}

describe('the Auction sent to solver engines', () => {
  it('is a valid Auction of the published API, for every kind of order', () => {
    const orders = [
      ...SCHEMES.map((signingScheme, i) =>
        auctionOrder(i + 1, {
          sellAmount: (10n * E18).toString(),
          buyAmount: (28_000n * E18).toString(),
          signingScheme,
          signature: signingScheme === 'presign' ? '0x' : `0x${'22'.repeat(65)}`,
          preInteractions: [HOOK],
          postInteractions: [HOOK],
        }),
      ),
      auctionOrder(5, {
        receiver: RECEIVER,
        partiallyFillable: true,
        executed: (5n * E18).toString(),
      }),
      auctionOrder(6, {
        kind: 'buy',
        partiallyFillable: true,
        executed: (7_000n * E18).toString(),
      }),
      auctionOrder(7, {
        sellToken: DUSD,
        buyToken: NATIVE_TOKEN_MARKER,
        sellAmount: '3000',
        buyAmount: '1',
      }),
    ];
    const sent = JSON.parse(JSON.stringify(auctionFor(content(orders))));
    expectSolverApi('Auction', sent);
    expect(sent).to.include({
      id: '42',
      deadline: '2026-11-27T12:00:05.000Z',
      effectiveGasPrice: '1500000000',
    });
    expect(sent.surplusCapturingJitOrderOwners).to.deep.equal([]);
    expect(sent.orders.map((o: { signingScheme: string }) => o.signingScheme)).to.deep.equal([
      ...SCHEMES,
      'eip712',
      'eip712',
      'eip712',
    ]);
    expect(sent.orders[0]).to.deep.include({
      class: 'limit',
      feePolicies: [],
      preInteractions: [HOOK],
      postInteractions: [HOOK],
      sellTokenSource: 'erc20',
      buyTokenDestination: 'erc20',
    });
    expect(sent.orders[0]).to.not.have.property('receiver');
    expect(sent.orders[4].receiver).to.equal(RECEIVER);
  });

  it('sends what is left of each order, the signed amounts beside it', () => {
    const ten = { sellAmount: (10n * E18).toString(), buyAmount: (28_000n * E18).toString() };
    const sold = auctionOrder(1, {
      ...ten,
      partiallyFillable: true,
      executed: (4n * E18).toString(),
    });
    // A buy order of 28,000 DUSD for at most 10 WETH, 1 atom short of a third bought.
    const bought = auctionOrder(2, {
      ...ten,
      kind: 'buy',
      partiallyFillable: true,
      executed: ((28_000n * E18) / 3n).toString(),
    });
    const [sell, buy] = auctionFor(content([sold, bought])).orders;
    expect(sell).to.include({
      sellAmount: (6n * E18).toString(),
      fullSellAmount: (10n * E18).toString(),
      // 28,000 · 6/10 exactly.
      buyAmount: (16_800n * E18).toString(),
      fullBuyAmount: (28_000n * E18).toString(),
    });
    const left = 28_000n * E18 - (28_000n * E18) / 3n;
    expect(buy).to.include({
      buyAmount: left.toString(),
      // The most it may still pay, rounded down.
      sellAmount: ((10n * E18 * left) / (28_000n * E18)).toString(),
    });
  });

  it('sends an order buying native ETH as one buying the wrapped token, priced as the ETH', () => {
    const eth = auctionOrder(1, { sellToken: DUSD, buyToken: NATIVE_TOKEN_MARKER });
    const withoutWeth = content([eth]);
    const sent = auctionFor({
      ...withoutWeth,
      referencePrices: { [DUSD]: '333', [NATIVE_TOKEN_MARKER]: E18.toString() },
    });
    expect(sent.orders[0]!.buyToken).to.equal(WETH);
    expect(Object.keys(sent.tokens)).to.not.include(NATIVE_TOKEN_MARKER);
    expect(sent.tokens[WETH]!.referencePrice).to.equal(E18.toString());
  });

  it('tells each token’s facts, leaving out what the token does not have', () => {
    const sent = auctionFor(content([auctionOrder(1)]));
    expect(sent.tokens).to.deep.equal({
      [WETH]: {
        decimals: 18,
        symbol: 'WETH',
        referencePrice: E18.toString(),
        availableBalance: '7',
        trusted: true,
      },
      [DUSD]: { referencePrice: '333333333333333', availableBalance: '0', trusted: false },
    });
  });

  it('offers the pools as constantProduct liquidity with their router', () => {
    const [pool] = auctionFor(content([auctionOrder(1)])).liquidity;
    expect(pool).to.deep.equal({
      kind: 'constantProduct',
      id: '0',
      address: devnetPool.address,
      router: ROUTER,
      gasEstimate: '95026',
      tokens: {
        [devnetPool.token0]: { balance: devnetPool.reserve0.toString() },
        [devnetPool.token1]: { balance: devnetPool.reserve1.toString() },
      },
      fee: '0.003',
    });
  });

  it('is sent with a null id for a quote', () => {
    const sent = auctionFor(content([auctionOrder(1)], null));
    expect(sent.id).to.equal(null);
    expectSolverApi('Auction', JSON.parse(JSON.stringify(sent)));
  });
});
