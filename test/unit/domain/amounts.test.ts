import { expect } from 'chai';
import fc from 'fast-check';
import { MAX_UINT256, parseAmount, parseUint256 } from '../../../src/domain/amounts.js';

describe('amounts', () => {
  it('reads decimal and 0x-hex strings', () => {
    expect(parseAmount('0')).to.equal(0n);
    expect(parseAmount('1000000')).to.equal(1_000_000n);
    expect(parseAmount('0x0f4240')).to.equal(1_000_000n);
    expect(parseAmount('0xABCDEF')).to.equal(0xabcdefn);
    expect(parseAmount('000042')).to.equal(42n);
  });

  it('accepts exactly up to 2^256 − 1 and reports overflow beyond', () => {
    expect(parseUint256(MAX_UINT256.toString())).to.deep.equal({ ok: true, value: MAX_UINT256 });
    expect(parseUint256(`0x${'f'.repeat(64)}`)).to.deep.equal({ ok: true, value: MAX_UINT256 });
    expect(parseUint256((MAX_UINT256 + 1n).toString())).to.deep.equal({
      ok: false,
      reason: 'overflow',
    });
    expect(parseUint256(`0x1${'0'.repeat(64)}`)).to.deep.equal({ ok: false, reason: 'overflow' });
    expect(parseUint256('9'.repeat(5000))).to.deep.equal({ ok: false, reason: 'overflow' });
    expect(parseAmount((MAX_UINT256 + 1n).toString())).to.equal(null);
  });

  it('ignores leading zeros when judging overflow', () => {
    expect(parseAmount(`${'0'.repeat(200)}${MAX_UINT256}`)).to.equal(MAX_UINT256);
    expect(parseAmount(`0x${'0'.repeat(200)}1`)).to.equal(1n);
  });

  it('calls everything else malformed', () => {
    for (const bad of [
      '',
      '0x',
      '-1',
      '+1',
      ' 1',
      '1 ',
      '1.0',
      '1e18',
      '1_000',
      '0X10',
      '0xg',
      'abc',
      1,
      1n,
      null,
      undefined,
      {},
    ]) {
      expect(parseUint256(bad), String(bad)).to.deep.equal({ ok: false, reason: 'malformed' });
    }
  });

  it('round-trips every uint256 in both notations', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: MAX_UINT256 }), (value) => {
        expect(parseAmount(value.toString())).to.equal(value);
        expect(parseAmount(`0x${value.toString(16)}`)).to.equal(value);
      }),
    );
  });

  it('never throws on hostile input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.string()), (value) => {
        parseUint256(value);
      }),
    );
  });
});
