import { expect } from 'chai';
import fc from 'fast-check';
import type { QuoteCreatedV1 } from '../../../src/domain/events.js';
import {
  outsideMarket,
  plainDecimal,
  quoteAmounts,
  quoteMatches,
  scaledQuoteAmounts,
  type QuotableOrder,
  type QuoteSide,
} from '../../../src/domain/quote.js';

const NOW = new Date('2025-01-01T00:00:00Z');
const SELL = '0x1111111111111111111111111111111111111111';
const BUY = '0x2222222222222222222222222222222222222222';

/** The stored quote for `side`, as create-quote records it from the answered amounts. */
function storedQuote(side: QuoteSide, estimate: bigint, fee: bigint): QuoteCreatedV1 {
  const amounts = quoteAmounts(side, { amount: estimate, gas: 0n }, fee);
  if (!amounts.ok) throw new Error('the sample quote must cover its fee');
  return {
    network: 'mainnet',
    id: 1,
    from: SELL,
    quote: {
      sellToken: SELL,
      buyToken: BUY,
      receiver: null,
      sellAmount: amounts.sellAmount.toString(),
      buyAmount: amounts.buyAmount.toString(),
      validTo: 0,
      appData: `0x${'0'.repeat(64)}`,
      feeAmount: fee.toString(),
      kind: side.kind,
      sellTokenBalance: 'erc20',
      buyTokenBalance: 'erc20',
      signingScheme: 'eip712',
    },
    fullAppData: null,
    onchainOrder: false,
    gasAmount: '0',
    gasPrice: '0',
    sellTokenPrice: '1',
    solver: SELL,
    verified: false,
    createdAt: NOW.toISOString(),
    expiration: new Date(NOW.getTime() + 60_000).toISOString(),
  };
}

const order = (fields: Partial<QuotableOrder>): QuotableOrder => ({
  sellToken: SELL,
  buyToken: BUY,
  kind: 'sell',
  sellAmount: 0n,
  buyAmount: 1n,
  feeAmount: 0n,
  ...fields,
});

describe('quoteMatches', () => {
  const X = 10n ** 18n;
  const FEE = 10n ** 15n;
  const beforeFee = storedQuote({ kind: 'sell', sellAmountBeforeFee: X }, 3000n * X, FEE);

  it('links the sell order the SDK signs from a before-fee quote: quote.sellAmount + quote.feeAmount, fee 0', () => {
    const signed = BigInt(beforeFee.quote.sellAmount) + BigInt(beforeFee.quote.feeAmount);
    expect(signed).to.equal(X);
    expect(quoteMatches(beforeFee, order({ sellAmount: signed }), NOW)).to.equal(true);
  });

  it('still links an order signed for the amount after the fee, and the reference’s fee-carrying form', () => {
    expect(quoteMatches(beforeFee, order({ sellAmount: X - FEE }), NOW)).to.equal(true);
    // The reference's rule also admits a signed fee; the API refuses one earlier (NonZeroFee).
    const carrying = order({ sellAmount: X - FEE, feeAmount: FEE });
    expect(quoteMatches(beforeFee, carrying, NOW)).to.equal(true);
  });

  it('links a sell order to an after-fee quote on the quoted amount itself', () => {
    const afterFee = storedQuote({ kind: 'sell', sellAmountAfterFee: X }, 3000n * X, FEE);
    expect(quoteMatches(afterFee, order({ sellAmount: X }), NOW)).to.equal(true);
  });

  it('refuses other amounts, other tokens, the other kind and an expired quote', () => {
    expect(quoteMatches(beforeFee, order({ sellAmount: X + 1n }), NOW)).to.equal(false);
    expect(quoteMatches(beforeFee, order({ sellAmount: X - FEE - 1n }), NOW)).to.equal(false);
    expect(quoteMatches(beforeFee, order({ sellAmount: X, buyToken: SELL }), NOW)).to.equal(false);
    expect(quoteMatches(beforeFee, order({ sellAmount: X, kind: 'buy' }), NOW)).to.equal(false);
    const later = new Date(Date.parse(beforeFee.expiration));
    expect(quoteMatches(beforeFee, order({ sellAmount: X }), later)).to.equal(false);
  });

  it('links a buy order on the quoted buy amount, which the SDK signs unchanged', () => {
    const buy = storedQuote({ kind: 'buy', buyAmountAfterFee: 3000n * X }, X, FEE);
    // The SDK adds slippage to the sell amount of a buy order, never to its buy amount.
    const signed = order({
      kind: 'buy',
      sellAmount: (X * 10_050n) / 10_000n,
      buyAmount: 3000n * X,
    });
    expect(quoteMatches(buy, signed, NOW)).to.equal(true);
    expect(quoteMatches(buy, { ...signed, buyAmount: 3000n * X - 1n }, NOW)).to.equal(false);
  });
});

describe('scaledQuoteAmounts', () => {
  it('scales a sell quote to the order’s sell amount at the quote’s price, the fee as quoted', () => {
    const quote = { sellAmount: '900', buyAmount: '2700', feeAmount: '100' };
    expect(scaledQuoteAmounts(quote, { kind: 'sell', sellAmount: 1000n })).to.deep.equal({
      sellAmount: '1000',
      buyAmount: '3000',
      feeAmount: '100',
    });
  });

  it('keeps a buy quote as quoted', () => {
    const quote = { sellAmount: '900', buyAmount: '2700', feeAmount: '100' };
    expect(scaledQuoteAmounts(quote, { kind: 'buy', sellAmount: 1000n })).to.deep.equal(quote);
  });

  it('puts an SDK sell order at its quote’s buy amount inside the market, and above it outside', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 2n, max: 1n << 128n }),
        fc.bigInt({ min: 0n, max: 1n << 128n }),
        fc.bigInt({ min: 1n, max: 1n << 128n }),
        (total, feeSeed, estimate) => {
          const fee = feeSeed % total;
          const stored = storedQuote({ kind: 'sell', sellAmountBeforeFee: total }, estimate, fee);
          const quoted = BigInt(stored.quote.buyAmount);
          const signed = order({ sellAmount: total, buyAmount: quoted });
          expect(quoteMatches(stored, signed, NOW)).to.equal(true);
          const linked = scaledQuoteAmounts(stored.quote, signed);
          // The scaled quote prices the whole signed amount, as the reference's does; the
          // unscaled one would take the fee off twice and call fair orders outside the market.
          expect(linked.sellAmount).to.equal(total.toString());
          expect(outsideMarket(signed, linked)).to.equal(false);
          expect(outsideMarket({ ...signed, buyAmount: quoted + 2n }, linked)).to.equal(true);
        },
      ),
    );
  });
});

describe('plainDecimal', () => {
  it('writes tiny and huge floats without an exponent', () => {
    expect(plainDecimal(3e-9)).to.equal('0.000000003');
    expect(plainDecimal(1.25e-7)).to.equal('0.000000125');
    expect(plainDecimal(5e-324)).to.equal(`0.${'0'.repeat(323)}5`);
    expect(plainDecimal(1e21)).to.equal('1000000000000000000000');
    expect(plainDecimal(1.2345e25)).to.equal('12345000000000000000000000');
  });

  it('leaves what JavaScript already writes plainly as it is', () => {
    for (const [value, text] of [
      [0, '0'],
      [1, '1'],
      [0.5, '0.5'],
      [123.456, '123.456'],
      [0.000001, '0.000001'],
    ] as const) {
      expect(plainDecimal(value)).to.equal(text);
    }
  });

  it('reads back as the same float for every non-negative finite value', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: Number.MAX_VALUE, noNaN: true }), (value) => {
        const text = plainDecimal(value);
        expect(text).to.match(/^[0-9]+(\.[0-9]+)?$/);
        expect(Number(text)).to.equal(value === 0 ? 0 : value);
      }),
    );
  });
});
