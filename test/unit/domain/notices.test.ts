import { expect } from 'chai';
import fc from 'fast-check';
import type { Address, OrderUid } from '../../../src/domain/events.js';
import {
  cancelledMessage,
  describeOrder,
  expiredMessage,
  filledMessage,
  insufficientBalanceMessage,
  isExpiredAt,
  noticeId,
  noticeTimestamp,
  partiallyFilledMessage,
  priceImprovement,
  priceImprovementMessage,
  unixSeconds,
  type NoticeOrder,
} from '../../../src/domain/notices.js';
import { DEVNET_DEMO_TOKENS } from '../../../src/domain/networks.js';
import {
  formatTokenAmount,
  formatUnits,
  tokenName,
  tokenUnits,
} from '../../../src/domain/token-units.js';
import { executedAmount, isFilled } from '../../../src/domain/trade-execution.js';

const E18 = 10n ** 18n;
const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2' as Address;
const USDC = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48' as Address;
const UNKNOWN = '0x00000000000000000000000000000000000000aa' as Address;
const OWNER = '0x1111111111111111111111111111111111111111' as Address;
const UID = `0x${'ab'.repeat(32)}${OWNER.slice(2)}ffffffff` as OrderUid;

const sellOrder = (overrides: Partial<NoticeOrder> = {}): NoticeOrder => ({
  network: 'mainnet',
  uid: UID,
  owner: OWNER,
  sellToken: WETH,
  buyToken: USDC,
  sellAmount: 2n * E18,
  buyAmount: 6_000_000_000n,
  kind: 'sell',
  ...overrides,
});
const buyOrder = (overrides: Partial<NoticeOrder> = {}) => sellOrder({ kind: 'buy', ...overrides });
const none = { sell: 0n, buy: 0n, fee: 0n };

describe('domain/token-units', () => {
  it('knows wrapped native tokens, the USD references and the devnet demo tokens', () => {
    expect(tokenUnits('mainnet', WETH)).to.deep.equal({ symbol: 'WETH', decimals: 18 });
    expect(tokenUnits('mainnet', USDC.toUpperCase().replace('0X', '0x') as Address)).to.deep.equal({
      symbol: 'USDC',
      decimals: 6,
    });
    expect(tokenUnits('devnet', WETH)).to.deep.equal({ symbol: 'WETH', decimals: 18 });
    for (const [symbol, token] of Object.entries(DEVNET_DEMO_TOKENS)) {
      expect(tokenUnits('devnet', token)).to.deep.equal({ symbol, decimals: 18 });
    }
    // Per network: mainnet's USDC address means nothing on the devnet.
    expect(tokenUnits('devnet', USDC)).to.equal(null);
    expect(tokenUnits('mainnet', UNKNOWN)).to.equal(null);
    expect(tokenUnits('xdai', '0xe91d153e0b41518a2ce8dd3d7944fa863463a97d')?.symbol).to.equal(
      'WXDAI',
    );
  });

  it('formats atoms in units without trailing zeros', () => {
    expect(formatUnits(1_500_000n, 6)).to.equal('1.5');
    expect(formatUnits(2n * E18, 18)).to.equal('2');
    expect(formatUnits(1n, 18)).to.equal('0.000000000000000001');
    expect(formatUnits(0n, 18)).to.equal('0');
    expect(formatUnits(-1_250_000n, 6)).to.equal('-1.25');
    expect(formatUnits(42n, 0)).to.equal('42');
    expect(() => formatUnits(1n, -1)).to.throw(RangeError);
  });

  it('round-trips: the formatted units parse back to the atoms', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), fc.nat({ max: 30 }), (n, d) => {
        const [whole, fraction = ''] = formatUnits(n, d).split('.');
        expect(BigInt(whole! + fraction.padEnd(d, '0'))).to.equal(n);
        expect(fraction.endsWith('0')).to.equal(false);
      }),
    );
  });

  it('shows known tokens by symbol and unknown ones in atoms with their address', () => {
    expect(formatTokenAmount('mainnet', WETH, 15n * 10n ** 17n)).to.equal('1.5 WETH');
    expect(formatTokenAmount('mainnet', UNKNOWN, 1500n)).to.equal(`1500 atoms of ${UNKNOWN}`);
    expect(tokenName('mainnet', USDC)).to.equal('USDC');
    expect(tokenName('mainnet', UNKNOWN)).to.equal(UNKNOWN);
  });
});

describe('domain/notices', () => {
  it('derives ids from the fact: equal for equal parts, distinct otherwise', () => {
    const a = noticeId('order_filled', 'mainnet', UID, '0xblock', 3);
    expect(a).to.equal(noticeId('order_filled', 'mainnet', UID, '0xblock', 3));
    expect(a).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    for (const other of [
      noticeId('order_partially_filled', 'mainnet', UID, '0xblock', 3),
      noticeId('price_improvement', 'mainnet', UID, '0xblock', 3),
      noticeId('order_filled', 'xdai', UID, '0xblock', 3),
      noticeId('order_filled', 'mainnet', UID, '0xblock', 4),
      noticeId('order_filled', 'mainnet', UID),
    ]) {
      expect(other).to.not.equal(a);
    }
  });

  it('counts sell orders by sell atoms before fees and buy orders by buy atoms', () => {
    const executed = { sell: 2n * E18 + 100n, buy: 5n, fee: 100n };
    expect(executedAmount('sell', executed)).to.equal(2n * E18);
    expect(executedAmount('buy', executed)).to.equal(5n);
    expect(isFilled(sellOrder(), executed)).to.equal(true);
    expect(isFilled(sellOrder(), { ...executed, fee: 101n })).to.equal(false);
    expect(isFilled(buyOrder(), { sell: 0n, buy: 6_000_000_000n, fee: 0n })).to.equal(true);
    expect(isFilled(buyOrder(), { sell: 9n * E18, buy: 5_999_999_999n, fee: 0n })).to.equal(false);
    expect(isFilled(sellOrder(), none)).to.equal(false);
  });

  describe('price improvement', () => {
    it('sell orders: bought beyond ceil(sold × buyAmount / sellAmount), in the buy token', () => {
      // Limit: 2 WETH for 6000 USDC; selling 1 WETH must bring at least 3000 USDC.
      const trade = { sellAmount: E18 + 7n, buyAmount: 3_000_500_000n, feeAmount: 7n };
      expect(priceImprovement(sellOrder(), trade)).to.deep.equal({
        surplus: 500_000n,
        token: USDC,
      });
      expect(priceImprovement(sellOrder(), { ...trade, buyAmount: 3_000_000_000n })).to.equal(null);
      // The limit is rounded up: 1 atom sold at 3 USDC-atoms per 1e12 WETH-atoms asks 1 atom.
      const tiny = sellOrder({ sellAmount: 3n, buyAmount: 1n });
      expect(priceImprovement(tiny, { sellAmount: 1n, buyAmount: 1n, feeAmount: 0n })).to.equal(
        null,
      );
      expect(
        priceImprovement(tiny, { sellAmount: 1n, buyAmount: 2n, feeAmount: 0n }),
      ).to.deep.equal({ surplus: 1n, token: USDC });
    });

    it('buy orders: paid below floor(bought × sellAmount / buyAmount), in the sell token', () => {
      // Limit: at most 2 WETH for 6000 USDC; buying 3000 USDC may cost 1 WETH.
      const trade = { sellAmount: E18 - 10n ** 15n + 5n, buyAmount: 3_000_000_000n, feeAmount: 5n };
      expect(priceImprovement(buyOrder(), trade)).to.deep.equal({
        surplus: 10n ** 15n,
        token: WETH,
      });
      expect(priceImprovement(buyOrder(), { ...trade, sellAmount: E18 + 5n })).to.equal(null);
    });

    it('never divides by zero and ignores degenerate trades', () => {
      const trade = { sellAmount: 10n, buyAmount: 10n, feeAmount: 0n };
      expect(priceImprovement(sellOrder({ sellAmount: 0n }), trade)).to.equal(null);
      expect(priceImprovement(buyOrder({ buyAmount: 0n }), trade)).to.equal(null);
      expect(priceImprovement(sellOrder(), { ...trade, feeAmount: 11n })).to.equal(null);
      expect(priceImprovement(sellOrder(), { ...trade, sellAmount: 0n })).to.equal(null);
    });

    it('is positive exactly when the trade beat the limit (property)', () => {
      fc.assert(
        fc.property(
          fc.bigInt({ min: 1n, max: 10n ** 30n }),
          fc.bigInt({ min: 1n, max: 10n ** 30n }),
          fc.bigInt({ min: 1n, max: 10n ** 30n }),
          fc.bigInt({ min: 0n, max: 10n ** 30n }),
          fc.constantFrom('sell' as const, 'buy' as const),
          (sellAmount, buyAmount, sold, bought, kind) => {
            const order = sellOrder({ sellAmount, buyAmount, kind });
            const got = priceImprovement(order, {
              sellAmount: sold,
              buyAmount: bought,
              feeAmount: 0n,
            });
            // In integers, without the rounding: one atom more than the limit price gives.
            const beat =
              kind === 'sell'
                ? (bought - 1n) * sellAmount >= sold * buyAmount
                : bought * sellAmount >= (sold + 1n) * buyAmount;
            expect(got !== null, `${kind} ${sold} for ${bought}`).to.equal(beat);
            if (got) expect(got.surplus > 0n).to.equal(true);
          },
        ),
      );
    });
  });

  it("reads the ledger's clock in whole seconds, as the API's status does", () => {
    expect(unixSeconds('2025-01-01T00:00:10.999Z')).to.equal(1_735_689_610);
    expect(isExpiredAt(1_735_689_610, '2025-01-01T00:00:10.999Z')).to.equal(false);
    expect(isExpiredAt(1_735_689_609, '2025-01-01T00:00:10.000Z')).to.equal(true);
    expect(() => unixSeconds('yesterday')).to.throw(RangeError);
    expect(noticeTimestamp('2025-01-01T01:00:00Z')).to.equal('2025-01-01T01:00:00.000Z');
    expect(noticeTimestamp('2025-01-01T02:00:00+01:00')).to.equal('2025-01-01T01:00:00.000Z');
  });

  describe('messages', () => {
    it('describe the order in token units', () => {
      expect(describeOrder(sellOrder())).to.equal(
        'order 0xabababab… to sell 2 WETH for at least 6000 USDC on Ethereum',
      );
      expect(describeOrder(buyOrder({ buyToken: UNKNOWN, buyAmount: 77n }))).to.equal(
        `order 0xabababab… to buy 77 atoms of ${UNKNOWN} for at most 2 WETH on Ethereum`,
      );
    });

    it('tell fills, partial fills and surplus', () => {
      const executed = { sell: 2n * E18 + 3n, buy: 6_100_000_000n, fee: 3n };
      expect(filledMessage(sellOrder(), executed)).to.equal(
        'Order 0xabababab… to sell 2 WETH for at least 6000 USDC on Ethereum was filled: ' +
          '2 WETH sold for 6100 USDC in total.',
      );
      const trade = { sellAmount: 5n * 10n ** 17n, buyAmount: 1_500_000_000n, feeAmount: 0n };
      expect(
        partiallyFilledMessage(sellOrder(), trade, { sell: trade.sellAmount, buy: 1n, fee: 0n }),
      ).to.equal(
        'Order 0xabababab… to sell 2 WETH for at least 6000 USDC on Ethereum was partially ' +
          'filled: 0.5 WETH sold for 1500 USDC; 0.5 of 2 WETH filled so far.',
      );
      expect(
        partiallyFilledMessage(buyOrder({ buyToken: UNKNOWN }), trade, {
          sell: 1n,
          buy: 1_500_000_000n,
          fee: 0n,
        }),
      ).to.contain(`1500000000 of 6000000000 atoms of ${UNKNOWN} filled so far.`);
      expect(priceImprovementMessage(sellOrder(), { surplus: 2_500_000n, token: USDC })).to.equal(
        'Order 0xabababab… to sell 2 WETH for at least 6000 USDC on Ethereum got a better ' +
          'price: it received 2.5 USDC more than its limit price asked.',
      );
      expect(priceImprovementMessage(buyOrder(), { surplus: E18 / 4n, token: WETH })).to.contain(
        'it paid 0.25 WETH less than its limit price allowed.',
      );
    });

    it('tell cancellations, expiry and a short balance', () => {
      expect(cancelledMessage(sellOrder(), 'api')).to.match(
        /cancelled by a signed cancellation\.$/,
      );
      expect(cancelledMessage(sellOrder(), 'chain')).to.match(/was cancelled on chain\.$/);
      expect(expiredMessage(sellOrder(), none)).to.match(/expired without being filled\.$/);
      expect(expiredMessage(sellOrder(), { sell: E18, buy: 1n, fee: 0n })).to.match(
        /expired with 1 of 2 WETH filled\.$/,
      );
      expect(insufficientBalanceMessage(sellOrder())).to.equal(
        'Order 0xabababab… to sell 2 WETH for at least 6000 USDC on Ethereum was left out of ' +
          `an auction: the balance of WETH in ${OWNER} is too low. It takes part again once ` +
          'the balance covers it.',
      );
      // An unknown network is named as given.
      expect(describeOrder(sellOrder({ network: 'nowhere' }))).to.match(/on nowhere$/);
    });
  });
});
