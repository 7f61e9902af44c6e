import { expect } from 'chai';
import { orderStatus, type StatusInputs } from '../../src/domain/status.js';

const base: StatusInputs = {
  kind: 'sell',
  sellAmount: 100n,
  buyAmount: 50n,
  validTo: 1000,
  executedSellAmount: 0n,
  executedBuyAmount: 0n,
  executedFeeAmount: 0n,
  invalidated: false,
  presignaturePending: false,
};

describe('orderStatus', () => {
  it('is open before validTo and expired strictly after it', () => {
    expect(orderStatus(base, 1000)).to.equal('open');
    expect(orderStatus(base, 1001)).to.equal('expired');
  });
  it('puts fulfilled before cancelled and expired', () => {
    const filled = { ...base, executedSellAmount: 100n, invalidated: true };
    expect(orderStatus(filled, 5000)).to.equal('fulfilled');
  });
});
