/**
 * Path and query parameters. Like the reference, UIDs, addresses and hashes in paths are
 * accepted with or without `0x` and in any case; malformed ones get a 400 naming them.
 */
import type { Address, Hex, OrderUid } from '../domain/events.js';
import { parseAddress, parseHexBytes, parseOrderUid } from '../bytes/hex.js';
import { ApiError } from './errors.js';

const invalid = (what: string, value: string) =>
  new ApiError('InvalidParameter', `${what} is not valid: ${JSON.stringify(value)}`);

/**
 * Hex in a path, as the hex parsers take it: lowercased first, so that "any case" covers the
 * prefix too (`0X…`), which bodies may not use.
 */
const pathHex = (value: string) => value.toLowerCase();
const optionalPrefix = { allowMissingPrefix: true };

/** An address in a path in any form; null when it is none. */
export const pathAddress = (value: string): Address | null =>
  parseAddress(pathHex(value), optionalPrefix);

export function uidParam(value: string): OrderUid {
  const uid = parseOrderUid(pathHex(value), optionalPrefix);
  if (!uid) throw invalid('order UID', value);
  return uid;
}

export function addressParam(value: string, what = 'address'): Address {
  const address = pathAddress(value);
  if (!address) throw invalid(what, value);
  return address;
}

export function hashParam(value: string, what = 'hash'): Hex {
  const hash = parseHexBytes(pathHex(value), 32, optionalPrefix);
  if (!hash) throw invalid(what, value);
  return hash;
}

/** A non-negative integer query parameter; absent gives the fallback. */
export function integerQuery(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value)) {
    throw new ApiError('InvalidParameter', `${name} must be a non-negative integer`);
  }
  return Number(value);
}
