import { expect } from 'chai';
import fc from 'fast-check';
import {
  bytesToHex,
  hexToBytes,
  parseAddress,
  parseHexBytes,
  parseOrderUid,
} from '../../../src/bytes/hex.js';

const CHECKSUMMED = '0x9008D19f58AAbD9eD0D60971565AA8510560ab41';
const LOWER = '0x9008d19f58aabd9ed0d60971565aa8510560ab41';

describe('hex', () => {
  describe('parseAddress', () => {
    it('accepts lowercase and mixed case, returning lowercase', () => {
      expect(parseAddress(LOWER)).to.equal(LOWER);
      expect(parseAddress(CHECKSUMMED)).to.equal(LOWER);
      expect(parseAddress(LOWER.toUpperCase().replace('0X', '0x'))).to.equal(LOWER);
    });

    it('requires the 0x prefix unless allowMissingPrefix', () => {
      expect(parseAddress(LOWER.slice(2))).to.equal(null);
      expect(parseAddress(CHECKSUMMED.slice(2), { allowMissingPrefix: true })).to.equal(LOWER);
      expect(parseAddress(LOWER, { allowMissingPrefix: true })).to.equal(LOWER);
      expect(parseAddress(`0X${LOWER.slice(2)}`)).to.equal(null);
    });

    it('rejects wrong lengths, non-hex and non-strings', () => {
      for (const bad of [
        `${LOWER}00`,
        LOWER.slice(0, -1),
        `${LOWER.slice(0, -1)}g`,
        ` ${LOWER}`,
        '0x',
        '',
        42,
        null,
        undefined,
        { toString: () => LOWER },
        [LOWER],
      ]) {
        expect(parseAddress(bad), String(bad)).to.equal(null);
      }
    });
  });

  describe('parseHexBytes', () => {
    it('accepts even-length hex of any length, or exactly the given length', () => {
      expect(parseHexBytes('0x')).to.equal('0x');
      expect(parseHexBytes('0xABcd')).to.equal('0xabcd');
      expect(parseHexBytes('0xabc')).to.equal(null);
      expect(parseHexBytes('0xabcd', 2)).to.equal('0xabcd');
      expect(parseHexBytes('0xabcd', 3)).to.equal(null);
      expect(parseHexBytes('abcd', 2, { allowMissingPrefix: true })).to.equal('0xabcd');
    });
  });

  describe('parseOrderUid', () => {
    it('accepts exactly 56 bytes, lowercased', () => {
      const uid = `0x${'Ab'.repeat(56)}`;
      expect(parseOrderUid(uid)).to.equal(uid.toLowerCase());
      expect(parseOrderUid(uid.slice(2), { allowMissingPrefix: true })).to.equal(uid.toLowerCase());
      expect(parseOrderUid(uid.slice(2))).to.equal(null);
      expect(parseOrderUid(`0x${'ab'.repeat(55)}`)).to.equal(null);
      expect(parseOrderUid(`0x${'ab'.repeat(57)}`)).to.equal(null);
    });
  });

  it('round-trips bytes through hex', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        const hex = bytesToHex(bytes);
        expect(hex).to.match(/^0x([0-9a-f]{2})*$/);
        expect(hexToBytes(hex)).to.deep.equal(bytes);
      }),
    );
  });

  it('encodes a view of a larger buffer by its own bytes only', () => {
    const backing = new Uint8Array([1, 2, 3, 4]);
    expect(bytesToHex(backing.subarray(1, 3))).to.equal('0x0203');
  });

  it('hexToBytes refuses malformed hex instead of truncating', () => {
    for (const bad of ['abcd', '0xabc', '0xzz', '0x12zz']) {
      expect(() => hexToBytes(bad), bad).to.throw(TypeError);
    }
  });

  it('parsers never throw on hostile input', () => {
    fc.assert(
      fc.property(fc.anything(), fc.boolean(), (value, allowMissingPrefix) => {
        parseAddress(value, { allowMissingPrefix });
        parseOrderUid(value, { allowMissingPrefix });
        parseHexBytes(value, undefined, { allowMissingPrefix });
      }),
    );
  });
});
