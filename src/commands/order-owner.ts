/**
 * Who owns a submitted order (reference §4.1 step 5, with the seed's codes): the recovered
 * ECDSA signer, or for presign/eip1271 the declared `from` (or app-data `metadata.signer`).
 */
import type { Address, Hex, SigningScheme } from '../domain/events.js';
import { parseHexBytes } from '../bytes/hex.js';
import { recoverOrderSigner } from '../domain/signatures.js';
import { reject } from './rejection.js';

export interface OwnerInput {
  scheme: SigningScheme;
  signature: string;
  digest: Uint8Array;
  from: Address | null;
  appDataSigner: Address | null;
}

export interface VerifiedOwner {
  owner: Address;
  /** The signature as stored: 65 bytes for ECDSA, raw bytes for eip1271, `0x` for presign. */
  signature: Hex;
}

export function verifyOwner(input: OwnerInput): VerifiedOwner {
  const { from, appDataSigner } = input;
  if (from && appDataSigner && from !== appDataSigner) {
    reject('AppdataFromMismatch', `from ${from} differs from the app data signer ${appDataSigner}`);
  }
  const expected = from ?? appDataSigner;
  const signature = parseHexBytes(input.signature);
  if (signature === null) reject('InvalidSignature', 'signature is not 0x-prefixed hex bytes');

  if (input.scheme === 'eip712' || input.scheme === 'ethsign') {
    const signer =
      signature.length === 132 ? recoverOrderSigner(input.scheme, input.digest, signature) : null;
    if (!signer) reject('InvalidSignature', 'signature cannot be verified');
    if (expected && signer !== expected) {
      reject('InvalidSignature', `recovered signer ${signer} does not match from ${expected}`);
    }
    return { owner: signer, signature };
  }
  if (!expected) reject('MissingFrom', `${input.scheme} orders need the owner in from`);
  if (input.scheme === 'presign') {
    // The legacy 20-byte pre-signature (the owner) is accepted and dropped, as the reference does.
    if (signature !== '0x' && signature.length !== 42) {
      reject('InvalidSignature', 'presign orders carry an empty signature (0x)');
    }
    return { owner: expected, signature: '0x' };
  }
  return { owner: expected, signature };
}
