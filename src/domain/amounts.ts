/**
 * uint256 amounts as the reference reads them (`HexOrDecimalU256`, reference §0): a JSON string
 * holding either decimal digits or `0x` followed by hex digits. Signs, whitespace, fractions,
 * exponents, underscores and JSON numbers are malformed.
 */

export const MAX_UINT256 = (1n << 256n) - 1n;

export type Uint256Parse =
  { ok: true; value: bigint } | { ok: false; reason: 'malformed' | 'overflow' };

const DECIMAL = /^[0-9]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
/** Significant digits above which a value cannot fit: 2^256 has 78 decimal / 65 hex digits. */
const MAX_DECIMAL_DIGITS = 78;
const MAX_HEX_DIGITS = 64;

/** Parses an amount, telling a malformed string from a well-formed one beyond 2^256 − 1. */
export function parseUint256(s: unknown): Uint256Parse {
  if (typeof s !== 'string') return { ok: false, reason: 'malformed' };
  let digits: string;
  let prefix: string;
  let maxDigits: number;
  if (HEX.test(s)) {
    digits = s.slice(2);
    prefix = '0x';
    maxDigits = MAX_HEX_DIGITS;
  } else if (DECIMAL.test(s)) {
    digits = s;
    prefix = '';
    maxDigits = MAX_DECIMAL_DIGITS;
  } else {
    return { ok: false, reason: 'malformed' };
  }
  // Leading zeros are legal; stripping them first bounds the BigInt work on hostile input.
  const significant = digits.replace(/^0+/, '');
  if (significant.length > maxDigits) return { ok: false, reason: 'overflow' };
  const value = significant === '' ? 0n : BigInt(prefix + significant);
  return value > MAX_UINT256 ? { ok: false, reason: 'overflow' } : { ok: true, value };
}

/** The amount, or null when malformed or out of range. */
export function parseAmount(s: unknown): bigint | null {
  const parsed = parseUint256(s);
  return parsed.ok ? parsed.value : null;
}
