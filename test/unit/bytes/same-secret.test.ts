import { expect } from 'chai';
import fc from 'fast-check';
import { sameSecret } from '../../../src/bytes/same-secret.js';

describe('sameSecret', () => {
  it('compares secrets exactly, whatever their lengths', () => {
    expect(sameSecret('abc', 'abc')).to.equal(true);
    for (const other of ['abd', 'ab', 'abcd', 'ABC', '', 'abc\u0000']) {
      expect(sameSecret('abc', other), JSON.stringify(other)).to.equal(false);
    }
  });

  it('is string equality for any two strings, non-ASCII included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        expect(sameSecret(a, b)).to.equal(a === b);
        expect(sameSecret(a, a)).to.equal(true);
      }),
    );
  });
});
