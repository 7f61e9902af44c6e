/** Comparing a presented secret (an API key) with the configured one. */
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';

/** Equal strings, compared without an early exit (over their SHA-256, so lengths leak nothing). */
export function sameSecret(expected: string, presented: string): boolean {
  const a = sha256(utf8ToBytes(expected));
  const b = sha256(utf8ToBytes(presented));
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}
