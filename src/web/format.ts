/** Amounts, prices, addresses and times as people read them. */
import { knownToken } from './networks.js';

/** `atoms` of a token with `decimals`, at most `digits` fraction digits, no rounding up. */
export function units(atoms: string | bigint, decimals: number, digits = 6): string {
  const value = BigInt(atoms);
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const scale = 10n ** BigInt(decimals);
  const whole = abs / scale;
  const fraction = (abs % scale)
    .toString()
    .padStart(decimals, '0')
    .slice(0, digits)
    .replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole.toLocaleString('en-US')}${fraction ? `.${fraction}` : ''}`;
}

/** Decimal text in whole tokens to atoms; null when it is not a non-negative amount. */
export function toAtoms(text: string, decimals: number): bigint | null {
  const match = /^\s*(\d+)(?:\.(\d*))?\s*$/.exec(text);
  if (!match) return null;
  const fraction = (match[2] ?? '').padEnd(decimals, '0');
  if (fraction.length > decimals) return null;
  return BigInt(match[1]!) * 10n ** BigInt(decimals) + BigInt(fraction || '0');
}

/** Non-negative `atoms` as exact decimal text in whole tokens, as `toAtoms` reads it back. */
export function exactUnits(atoms: bigint, decimals: number): string {
  const scale = 10n ** BigInt(decimals);
  const fraction = (atoms % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${atoms / scale}${fraction ? `.${fraction}` : ''}`;
}

/** `n` and its noun, plural but for one: `1 order`, `2 orders`. */
export const counted = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

export const short = (hex: string): string =>
  hex.length > 14 ? `${hex.slice(0, 8)}…${hex.slice(-6)}` : hex;

export const symbolOf = (network: string, token: string): string =>
  knownToken(network, token)?.symbol ?? short(token);

/** Decimals of a token as this app knows them; 0 (atoms) otherwise. */
export const decimalsOf = (network: string, token: string): number =>
  knownToken(network, token)?.decimals ?? 0;

/** Native-token atoms (1e18 a token) in whole native tokens. */
export const native = (atoms: string | bigint): string => units(atoms, 18, 8);

export const time = (iso: string): string =>
  new Date(iso).toLocaleString('en-GB', { timeZone: 'UTC' }) + ' UTC';

/** `a / b` of two big integers as a float, for pictures and ratios (not for amounts). */
export function ratio(a: bigint, b: bigint): number {
  if (b === 0n) return Number.NaN;
  const scale = 10n ** 18n;
  return Number((a * scale) / b) / 1e18;
}
