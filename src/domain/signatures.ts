/**
 * ECDSA signer recovery for the `eip712` and `ethsign` schemes (reference §4.2), for orders and
 * cancellations alike: both sign an EIP-712 digest.
 *
 * What counts as valid is what GPv2Settlement's `ecrecover` accepts, because that is what
 * decides whether the order can settle: r and s in [1, n−1], high s included (ecrecover does
 * not enforce EIP-2's low-s rule, and neither does libsecp256k1's recovery). v is 27/28, or
 * 0/1 which the API normalises to 27/28. Anything else recovers to null; nothing here throws.
 */
import { keccak256 } from '../bytes/keccak.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import secp256k1 from 'secp256k1';
import type { Address, Hex } from './events.js';
import { bytesToHex } from '../bytes/hex.js';

export type EcdsaScheme = 'eip712' | 'ethsign';

const SIGNATURE_HEX = /^0x[0-9a-fA-F]{130}$/;
const ETHSIGN_PREFIX = utf8ToBytes('\x19Ethereum Signed Message:\n32');

/** What `ethsign` signs: the EIP-191 personal message of the 32-byte digest. */
export function ethSignMessageHash(digest: Uint8Array): Uint8Array {
  const message = new Uint8Array(ETHSIGN_PREFIX.length + digest.length);
  message.set(ETHSIGN_PREFIX, 0);
  message.set(digest, ETHSIGN_PREFIX.length);
  return keccak256(message);
}

function recoveryId(v: number): number | null {
  if (v === 0 || v === 1) return v;
  if (v === 27 || v === 28) return v - 27;
  return null;
}

/** The address whose key produced `signature` (65 bytes r‖s‖v) over `digest`, or null. */
export function recoverOrderSigner(
  scheme: EcdsaScheme,
  digest: Uint8Array,
  signature: Hex,
): Address | null {
  if (typeof signature !== 'string' || !SIGNATURE_HEX.test(signature)) return null;
  if (!(digest instanceof Uint8Array) || digest.length !== 32) return null;
  const bytes = Buffer.from(signature.slice(2), 'hex');
  const recid = recoveryId(bytes[64]!);
  if (recid === null) return null;
  let message: Uint8Array;
  if (scheme === 'eip712') message = digest;
  else if (scheme === 'ethsign') message = ethSignMessageHash(digest);
  else return null;
  let publicKey: Uint8Array;
  try {
    // Throws for r or s out of range, zero, or r not the x of a curve point.
    publicKey = secp256k1.ecdsaRecover(bytes.subarray(0, 64), recid, message, false);
  } catch {
    return null;
  }
  // Uncompressed key = 0x04 ‖ x ‖ y; the address is the low 20 bytes of keccak(x ‖ y).
  return bytesToHex(keccak256(publicKey.subarray(1)).subarray(12));
}
