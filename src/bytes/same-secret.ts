/**
 * Comparing a presented secret (an API key, a verification code) with the expected one without
 * an early exit. `timingSafeEqual` takes inputs of one length only, so both sides are compared
 * as their SHA-256 digests: the time taken depends on neither secret's contents nor its length.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest();

export function sameSecret(expected: string, presented: string): boolean {
  return timingSafeEqual(digest(expected), digest(presented));
}
