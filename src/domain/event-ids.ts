/**
 * Deterministic event ids. The ledger treats an id already in a stream as a no-op, so deriving
 * ids from the fact itself (an order UID, chain coordinates) makes retries and re-read chain
 * logs harmless.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '@noble/hashes/utils.js';

const encoder = new TextEncoder();

/** A UUID (version-8 layout, RFC 9562) derived from the parts' keccak hash. */
export function deterministicEventId(...parts: readonly (string | number)[]): string {
  const bytes = keccak_256(encoder.encode(parts.join('\u001f'))).slice(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytesToHex(bytes);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
