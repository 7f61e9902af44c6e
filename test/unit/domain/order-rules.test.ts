import { expect } from 'chai';
import type { Address, OrderData } from '../../../src/domain/events.js';
import {
  DEFAULT_VALIDITY,
  checkNoSignedFee,
  checkOrderRules,
  orderClass,
  type OrderRulesInput,
} from '../../../src/domain/order-rules.js';
import { NATIVE_TOKEN_MARKER, networkByName } from '../../../src/domain/networks.js';
import { OTHER, OWNER, sampleOrder } from '../../property/arbitraries.js';

const NOW = 1_700_000_000;
const mainnet = networkByName('mainnet')!;
const WETH = mainnet.wrappedNativeToken;

function input(
  order: Partial<OrderData> = {},
  rest: Partial<Omit<OrderRulesInput, 'order'>> = {},
): OrderRulesInput {
  const full = { ...sampleOrder, validTo: NOW + 1800, ...order };
  return {
    order: full,
    owner: OWNER,
    signingScheme: 'eip712',
    class: orderClass(full),
    nowSeconds: NOW,
    network: mainnet,
    denyList: { accounts: new Set(), tokens: new Set() },
    validity: DEFAULT_VALIDITY,
    request: 'submission',
    ...rest,
  };
}

const errorOf = (i: OrderRulesInput) => checkOrderRules(i)?.errorType ?? null;
const denied = (accounts: Address[], tokens: Address[] = []) => ({
  denyList: { accounts: new Set(accounts), tokens: new Set(tokens) },
});

describe('checkOrderRules', () => {
  it('accepts an ordinary limit order', () => {
    expect(checkOrderRules(input())).to.equal(null);
  });

  it('classes an order by its signed fee', () => {
    expect(orderClass({ feeAmount: '0' })).to.equal('limit');
    expect(orderClass({ feeAmount: '1' })).to.equal('market');
  });

  it('ZeroAmount for a zero sell or buy amount', () => {
    expect(checkOrderRules(input({ sellAmount: '0' }))).to.deep.equal({
      errorType: 'ZeroAmount',
      description: 'Buy or sell amount is zero.',
    });
    expect(errorOf(input({ buyAmount: '0' }))).to.equal('ZeroAmount');
  });

  it('Forbidden when the owner or the effective receiver is deny-listed', () => {
    expect(checkOrderRules(input({}, denied([OWNER])))).to.deep.equal({
      errorType: 'Forbidden',
      description: 'Forbidden, your account is deny-listed',
    });
    expect(errorOf(input({ receiver: OTHER }, denied([OTHER])))).to.equal('Forbidden');
    // A zero receiver means the owner, so only the owner's listing matters.
    const zero: Address = `0x${'00'.repeat(20)}`;
    expect(errorOf(input({ receiver: zero }, denied([zero])))).to.equal(null);
    expect(errorOf(input({ receiver: OTHER }, denied([OWNER])))).to.equal('Forbidden');
  });

  it('UnsupportedOrderType for a partially fillable market order only', () => {
    const market = input({ feeAmount: '1', partiallyFillable: true });
    expect(errorOf(market)).to.equal('UnsupportedOrderType');
    expect(errorOf(input({ partiallyFillable: true }))).to.equal(null);
  });

  it('UnsupportedBuyTokenDestination and UnsupportedSellTokenSource for non-erc20 balances', () => {
    expect(checkOrderRules(input({ buyTokenBalance: 'internal' }))).to.deep.equal({
      errorType: 'UnsupportedBuyTokenDestination',
      description: 'Type Internal',
    });
    expect(checkOrderRules(input({ sellTokenBalance: 'external' }))).to.deep.equal({
      errorType: 'UnsupportedSellTokenSource',
      description: 'Type External',
    });
    expect(errorOf(input({ sellTokenBalance: 'internal' }))).to.equal('UnsupportedSellTokenSource');
  });

  describe('validity window', () => {
    it('OrderExpired once validTo is in the past (seed §7.2)', () => {
      expect(errorOf(input({ validTo: NOW - 1 }))).to.equal('OrderExpired');
      expect(errorOf(input({ validTo: 0 }))).to.equal('OrderExpired');
      // A quote's order keeps the reference's code.
      expect(errorOf(input({ validTo: NOW - 1 }, { request: 'quote' }))).to.equal(
        'InsufficientValidTo',
      );
    });

    it('InsufficientValidTo below now + 60, inclusive bound passes', () => {
      expect(errorOf(input({ validTo: NOW }))).to.equal('InsufficientValidTo');
      expect(errorOf(input({ validTo: NOW + 59 }))).to.equal('InsufficientValidTo');
      expect(errorOf(input({ validTo: NOW + 60 }))).to.equal(null);
    });

    it('ExcessiveValidTo beyond 1 year for limit orders', () => {
      expect(errorOf(input({ validTo: NOW + 31_536_000 }))).to.equal(null);
      expect(errorOf(input({ validTo: NOW + 31_536_001 }))).to.equal('ExcessiveValidTo');
    });

    it('ExcessiveValidTo beyond 3 hours for market orders', () => {
      // A market order's signed fee makes it fail NonZeroFee later, but the window comes first.
      expect(errorOf(input({ feeAmount: '1', validTo: NOW + 10_800 }))).to.equal(null);
      expect(errorOf(input({ feeAmount: '1', validTo: NOW + 10_801 }))).to.equal(
        'ExcessiveValidTo',
      );
    });

    it('has no upper bound for presign and liquidity orders', () => {
      const far = { validTo: 0xffffffff };
      expect(errorOf(input(far, { signingScheme: 'presign' }))).to.equal(null);
      expect(errorOf(input(far, { class: 'liquidity' }))).to.equal(null);
      expect(errorOf(input(far, { signingScheme: 'eip1271' }))).to.equal('ExcessiveValidTo');
    });

    it('follows the configured limits', () => {
      const validity = { min: 10, maxMarket: 100, maxLimit: 1000 };
      expect(errorOf(input({ validTo: NOW + 10 }, { validity }))).to.equal(null);
      expect(errorOf(input({ validTo: NOW + 9 }, { validity }))).to.equal('InsufficientValidTo');
      expect(errorOf(input({ validTo: NOW + 1001 }, { validity }))).to.equal('ExcessiveValidTo');
    });
  });

  it('SameBuyAndSellToken for equal tokens, or wrapped native for native', () => {
    expect(checkOrderRules(input({ buyToken: sampleOrder.sellToken }))).to.deep.equal({
      errorType: 'SameBuyAndSellToken',
      description: 'Buy token is the same as the sell token.',
    });
    expect(errorOf(input({ sellToken: WETH, buyToken: NATIVE_TOKEN_MARKER }))).to.equal(
      'SameBuyAndSellToken',
    );
    // Buying native with another token is fine; on another chain WETH is just a token.
    expect(errorOf(input({ buyToken: NATIVE_TOKEN_MARKER }))).to.equal(null);
    const gnosis = networkByName('xdai')!;
    expect(
      errorOf(input({ sellToken: WETH, buyToken: NATIVE_TOKEN_MARKER }, { network: gnosis })),
    ).to.equal(null);
  });

  it('InvalidNativeSellToken when selling the native marker', () => {
    expect(errorOf(input({ sellToken: NATIVE_TOKEN_MARKER }))).to.equal('InvalidNativeSellToken');
  });

  it('UnsupportedToken for a deny-listed sell or buy token', () => {
    expect(checkOrderRules(input({}, denied([], [sampleOrder.buyToken])))).to.deep.equal({
      errorType: 'UnsupportedToken',
      description: `Token ${sampleOrder.buyToken} is unsupported: token is deny listed`,
    });
    expect(errorOf(input({}, denied([], [sampleOrder.sellToken])))).to.equal('UnsupportedToken');
  });

  it('NonZeroFee for any signed fee, and only after every other rule here', () => {
    expect(checkNoSignedFee({ feeAmount: '1' })).to.deep.equal({
      errorType: 'NonZeroFee',
      description: 'Fee must be zero',
    });
    expect(checkNoSignedFee({ feeAmount: '0' })).to.equal(null);
    // The rules before the chain checks let it through: it comes after them and the quote.
    expect(checkOrderRules(input({ feeAmount: '1' }))).to.equal(null);
  });

  it('reports the first broken rule in the reference order', () => {
    const everything = input(
      {
        sellAmount: '0',
        feeAmount: '1',
        partiallyFillable: true,
        buyTokenBalance: 'internal',
        sellTokenBalance: 'external',
        validTo: NOW - 1,
        sellToken: NATIVE_TOKEN_MARKER,
        buyToken: NATIVE_TOKEN_MARKER,
      },
      denied([OWNER], [sampleOrder.buyToken]),
    );
    // Each step repairs the rule that just fired, revealing the next one.
    const patch =
      (fields: Partial<OrderData>) =>
      (i: OrderRulesInput): OrderRulesInput => {
        const order = { ...i.order, ...fields };
        return { ...i, order, class: orderClass(order) };
      };
    const steps: [string, (i: OrderRulesInput) => OrderRulesInput][] = [
      ['ZeroAmount', patch({ sellAmount: '1' })],
      ['Forbidden', (i) => ({ ...i, ...denied([], [sampleOrder.buyToken]) })],
      ['UnsupportedOrderType', patch({ partiallyFillable: false })],
      ['UnsupportedBuyTokenDestination', patch({ buyTokenBalance: 'erc20' })],
      ['UnsupportedSellTokenSource', patch({ sellTokenBalance: 'erc20' })],
      ['OrderExpired', patch({ validTo: NOW + 61 })],
      ['SameBuyAndSellToken', patch({ buyToken: sampleOrder.buyToken })],
      ['InvalidNativeSellToken', patch({ sellToken: sampleOrder.sellToken })],
      ['UnsupportedToken', (i) => ({ ...i, ...denied([]) })],
    ];
    let current = everything;
    for (const [expected, repair] of steps) {
      expect(errorOf(current)).to.equal(expected);
      current = repair(current);
    }
    expect(errorOf(current)).to.equal(null);
  });
});
