/**
 * Hex parsing and encoding for addresses, byte strings and order UIDs.
 *
 * Parsers take `unknown` (they sit right behind JSON and path parameters), never throw, and
 * return the canonical lowercase `0x` form or null. Addresses are accepted in any letter case
 * without an EIP-55 checksum check, as the reference's hex deserialisers do; responses are
 * lowercase (reference §0).
 */
import type { Address, Hex, OrderUid } from '../domain/events.js';

export interface HexParseOptions {
  /** Also accept bare hex without `0x` (path and query parameters, reference §0). */
  allowMissingPrefix?: boolean;
}

export const ADDRESS_BYTES = 20;
export const ORDER_UID_BYTES = 56;

const HEX_DIGITS = /^[0-9a-fA-F]*$/;

/** The hex digits after the optional prefix, or null when the prefix rule is not met. */
function digitsOf(s: string, opts: HexParseOptions | undefined): string | null {
  if (s.startsWith('0x')) return s.slice(2);
  return opts?.allowMissingPrefix ? s : null;
}

/**
 * Parses `0x`-hex bytes: even digit count, and exactly `length` bytes when given.
 * `0x` alone is the empty byte string (a presign signature).
 */
export function parseHexBytes(s: unknown, length?: number, opts?: HexParseOptions): Hex | null {
  if (typeof s !== 'string') return null;
  const digits = digitsOf(s, opts);
  if (digits === null || digits.length % 2 !== 0) return null;
  if (length !== undefined && digits.length !== length * 2) return null;
  if (!HEX_DIGITS.test(digits)) return null;
  return `0x${digits.toLowerCase()}`;
}

export function parseAddress(s: unknown, opts?: HexParseOptions): Address | null {
  return parseHexBytes(s, ADDRESS_BYTES, opts);
}

export function parseOrderUid(s: unknown, opts?: HexParseOptions): OrderUid | null {
  return parseHexBytes(s, ORDER_UID_BYTES, opts);
}

/** Decodes `0x`-hex that is already known to be well formed; throws otherwise (a bug upstream). */
export function hexToBytes(hex: string): Uint8Array {
  const digits = hex.startsWith('0x') ? hex.slice(2) : null;
  if (digits === null || digits.length % 2 !== 0 || !HEX_DIGITS.test(digits)) {
    throw new TypeError(`not 0x-hex: ${hex.slice(0, 20)}`);
  }
  // Buffer's native decoder is several times faster than a JS loop on the signature hot path.
  const buf = Buffer.from(digits, 'hex');
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

export function bytesToHex(bytes: Uint8Array): Hex {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;
}
