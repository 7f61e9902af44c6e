import { keccak_256 } from '@noble/hashes/sha3.js';
import { expect } from 'chai';
import fc from 'fast-check';
import { bytesToHex } from '../../../src/bytes/hex.js';
import { keccak256 } from '../../../src/bytes/keccak.js';

describe('keccak256', () => {
  it('is keccak-256: the empty input gives the published digest', () => {
    expect(bytesToHex(keccak256(new Uint8Array()))).to.equal(
      '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    );
  });

  it('gives the same digest as @noble/hashes for any input, across the rate boundaries', () => {
    // 136 bytes is keccak-256's block: inputs up to a few blocks cover padding at every offset.
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 700 }), (bytes) => {
        expect(keccak256(bytes)).to.deep.equal(keccak_256(bytes));
      }),
      { numRuns: 2000 },
    );
  });
});
