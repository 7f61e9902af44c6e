/**
 * The client a caller's IP address counts as, for the per-client budgets (rate limits,
 * connections): an IPv4 address alone; an IPv6 address by its /64, the prefix one subscriber is
 * given, whose 2^64 addresses one host may use in turn (counted apart, they would be that many
 * budgets); an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`, as a dual-stack socket or a proxy may
 * show an IPv4 caller) as its IPv4 address, so that one caller is one client however it shows.
 */
import { parseIpAddress } from '../net/ip-ranges.js';

const MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/** The client `ip` counts as: an IPv4 address, an IPv6 `/64`, or `ip` itself when it is neither. */
export function clientOf(ip: string): string {
  const address = parseIpAddress(ip);
  if (!address) return ip;
  const { bytes } = address;
  if (address.family === 4) return bytes.join('.');
  if (MAPPED_PREFIX.every((byte, i) => bytes[i] === byte)) return bytes.subarray(12).join('.');
  const groups = [0, 2, 4, 6].map((i) => ((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return `${groups.join(':')}::/64`;
}
