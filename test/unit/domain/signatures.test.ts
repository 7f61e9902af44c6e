import { expect } from 'chai';
import { Signature, Wallet, ZeroAddress, getBytes, hashMessage } from 'ethers';
import fc from 'fast-check';
import { domainSeparator, orderDigest } from '../../../src/domain/eip712.js';
import type { Hex } from '../../../src/domain/events.js';
import { bytesToHex } from '../../../src/bytes/hex.js';
import { SETTLEMENT_CONTRACT } from '../../../src/domain/networks.js';
import { ethSignMessageHash, recoverOrderSigner } from '../../../src/domain/signatures.js';
import { ORDER_TYPES, domain } from '../../support/signing.js';
import { hexBytes, sampleOrder } from '../../property/arbitraries.js';

const wallet = new Wallet('0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318');
const owner = wallet.address.toLowerCase();
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const digest = orderDigest(sampleOrder, domainSeparator(1, SETTLEMENT_CONTRACT));

const withV = (signature: string, v: number): Hex =>
  `${signature.slice(0, 130)}${v.toString(16).padStart(2, '0')}` as Hex;

describe('recoverOrderSigner', () => {
  let eip712Signature: Hex;
  let ethSignSignature: Hex;

  before(async () => {
    eip712Signature = (await wallet.signTypedData(domain(1), ORDER_TYPES, {
      ...sampleOrder,
      receiver: ZeroAddress,
    })) as Hex;
    ethSignSignature = (await wallet.signMessage(digest)) as Hex;
  });

  it('recovers an ethers eip712 signature to the signer, lowercase', () => {
    expect(recoverOrderSigner('eip712', digest, eip712Signature)).to.equal(owner);
  });

  it('recovers an ethers personal-sign of the digest under ethsign', () => {
    expect(recoverOrderSigner('ethsign', digest, ethSignSignature)).to.equal(owner);
    // The schemes sign different messages, so the wrong scheme recovers someone else.
    expect(recoverOrderSigner('eip712', digest, ethSignSignature)).to.not.equal(owner);
  });

  it('hashes ethsign messages with the EIP-191 prefix as ethers does', () => {
    fc.assert(
      fc.property(hexBytes(32), (d) => {
        expect(bytesToHex(ethSignMessageHash(getBytes(d)))).to.equal(hashMessage(getBytes(d)));
      }),
      { numRuns: 50 },
    );
  });

  it('accepts v as 0/1 or 27/28 and nothing else', () => {
    const v = Number.parseInt(eip712Signature.slice(130), 16);
    expect(recoverOrderSigner('eip712', digest, withV(eip712Signature, v - 27))).to.equal(owner);
    for (const bad of [2, 26, 29, 30, 35, 255]) {
      expect(
        recoverOrderSigner('eip712', digest, withV(eip712Signature, bad)),
        `v=${bad}`,
      ).to.equal(null);
    }
  });

  it('accepts a high-s signature as ecrecover does (s → n−s, v flipped)', () => {
    const sig = Signature.from(eip712Signature);
    const highS = (N - BigInt(sig.s)).toString(16).padStart(64, '0');
    const flippedV = sig.v === 27 ? '1c' : '1b';
    const malleated = `${sig.r}${highS}${flippedV}` as Hex;
    expect(recoverOrderSigner('eip712', digest, malleated)).to.equal(owner);
  });

  it('returns null for r or s of zero or at least n', () => {
    const r = eip712Signature.slice(2, 66);
    const s = eip712Signature.slice(66, 130);
    const v = eip712Signature.slice(130);
    const word = (x: bigint) => x.toString(16).padStart(64, '0');
    for (const [rr, ss] of [
      [word(0n), s],
      [r, word(0n)],
      [word(N), s],
      [r, word(N)],
      ['f'.repeat(64), s],
    ]) {
      expect(recoverOrderSigner('eip712', digest, `0x${rr}${ss}${v}`)).to.equal(null);
    }
  });

  it('never throws on hostile input', () => {
    const hostile = fc.oneof(
      fc.anything(),
      fc.string(),
      hexBytes(65),
      fc.constantFrom('0x', '0x00', `0x${'zz'.repeat(65)}`, `0X${'11'.repeat(65)}`),
    );
    fc.assert(
      fc.property(
        fc.constantFrom('eip712', 'ethsign', 'presign'),
        fc.oneof(fc.uint8Array({ maxLength: 40 }), fc.anything()),
        hostile,
        (scheme, d, sig) => {
          const result = recoverOrderSigner(scheme as never, d as never, sig as never);
          expect(result === null || /^0x[0-9a-f]{40}$/.test(result)).to.equal(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('returns null for a digest that is not 32 bytes', () => {
    expect(recoverOrderSigner('eip712', digest.subarray(0, 31), eip712Signature)).to.equal(null);
  });
});
