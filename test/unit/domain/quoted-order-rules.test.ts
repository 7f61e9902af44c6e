/** The rules after the quote (reference §4.1 steps 11–12): each limit and the order between them. */
import { expect } from 'chai';
import type { Hook } from '../../../src/domain/app-data.js';
import {
  checkQuotedOrderRules,
  MAX_ORDER_GAS,
  type QuotedOrderRulesInput,
} from '../../../src/domain/quoted-order-rules.js';

const hook = (gasLimit: bigint): Hook => ({
  target: `0x${'11'.repeat(20)}`,
  callData: '0x',
  gasLimit,
});

const input = (overrides: Partial<QuotedOrderRulesInput>): QuotedOrderRulesInput => ({
  quoteGas: 0n,
  hooks: { pre: [], post: [] },
  validFrom: undefined,
  validTo: 2_000_000_000,
  ...overrides,
});

describe('domain: the rules after the quote', () => {
  it('counts the quote’s gas and every hook’s, pre and post, against 8M', () => {
    const hooks = { pre: [hook(1_000_000n)], post: [hook(2_000_000n)] };
    expect(checkQuotedOrderRules(input({ quoteGas: 5_000_000n, hooks }))).to.equal(null);
    expect(checkQuotedOrderRules(input({ quoteGas: 5_000_001n, hooks }))?.errorType).to.equal(
      'TooMuchGas',
    );
    expect(checkQuotedOrderRules(input({ quoteGas: MAX_ORDER_GAS + 1n }))?.errorType).to.equal(
      'TooMuchGas',
    );
  });

  it('needs validTo at least 60 s after validFrom, when the app data sets one', () => {
    expect(checkQuotedOrderRules(input({ validFrom: 1_000, validTo: 1_060 }))).to.equal(null);
    expect(checkQuotedOrderRules(input({ validFrom: 1_000, validTo: 1_059 }))?.errorType).to.equal(
      'InvalidValidFrom',
    );
    expect(checkQuotedOrderRules(input({ validFrom: undefined, validTo: 0 }))).to.equal(null);
  });

  it('answers TooMuchGas first when both are broken', () => {
    const both = input({ quoteGas: MAX_ORDER_GAS + 1n, validFrom: 1_000, validTo: 1_000 });
    expect(checkQuotedOrderRules(both)?.errorType).to.equal('TooMuchGas');
  });
});
