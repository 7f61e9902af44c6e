/**
 * Values a client should never send, for fuzz and injection tests: boundary numbers and
 * strings, wrong types, deep nesting, prototype keys, unicode and NUL, malformed
 * percent-encodings, SQL. Path and query values come already encoded for the wire; JSON values
 * may hold `RawJson` pieces for the number literals `JSON.stringify` cannot write. Values fitted
 * to a schema are in edge-values.ts.
 */
import fc from 'fast-check';

/** A piece of JSON text sent as is: `1e400`, `-0`, 80-digit integers, deep nesting. */
export class RawJson {
  constructor(readonly text: string) {}
}

export const MAX_UINT256 = 2n ** 256n - 1n;

/** Classic SQL injection payloads (the injection suite sends each through every parameter). */
export const SQL_PAYLOADS: readonly string[] = [
  "' OR '1'='1",
  "' OR 1=1 --",
  "' OR ''='",
  "'; DROP TABLE read.orders; --",
  '"; DROP TABLE ledger_events; --',
  '1; SELECT pg_sleep(30)--',
  "'; SELECT pg_sleep(30); --",
  "') UNION SELECT uid, owner, sell_token FROM read.orders --",
  "' UNION SELECT NULL, string_agg(uid::text, ',') FROM read.orders --",
  '$1',
  '$$; DELETE FROM read.orders; $$',
  "\\'",
  '\\',
  '"',
  '%27',
  "E'\\x27 OR 1=1",
  // Unicode quote lookalikes, which a normalising layer might turn into a quote.
  '\u2019 OR \u20191\u2019=\u20191',
  '\uff07 OR \uff071\uff07=\uff071',
  '\u02bc; DROP TABLE read.orders; --',
  '\u0000',
  "'\u0000' OR '1'='1",
];

/** Strings at the edges of what a parameter means: numbers, hex, lengths, encodings. */
const BOUNDARY_STRINGS: readonly string[] = [
  '',
  ' ',
  '0',
  '-1',
  '-0',
  '00',
  '+1',
  ' 1',
  '1.5',
  '1e3',
  '1E18',
  'NaN',
  'Infinity',
  'null',
  'true',
  'undefined',
  '4294967295',
  '4294967296',
  '9007199254740993',
  '18446744073709551615',
  '18446744073709551616',
  String(MAX_UINT256),
  String(MAX_UINT256 + 1n),
  '1'.repeat(101),
  '0x',
  '0X',
  '0x0',
  '0xg',
  `0x${'0'.repeat(40)}`,
  `0X${'F'.repeat(40)}`,
  `0x${'f'.repeat(64)}`,
  `0x${'f'.repeat(65)}`,
  `0x${'ab'.repeat(56)}`,
  'AB'.repeat(56),
  `0x${'1b'.repeat(65)}`,
];

const HOSTILE_TEXT: readonly string[] = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'a\u0000b',
  '\ud800',
  '\udfff',
  '\u202e',
  '\ufeff',
  'é',
  '\u{1d518}',
  '０ｘ１２',
  '\n',
  '\r\n',
  '<script>alert(1)</script>',
  '${7*7}',
  '../../etc/passwd',
  '%00',
  '%ff',
  ...SQL_PAYLOADS,
];

/** A decoded string: boundary, hostile, random (lone surrogates included) or hex-like. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...BOUNDARY_STRINGS, ...HOSTILE_TEXT),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.stringMatching(/^(0[xX])?[0-9a-fA-F]{0,130}$/),
  fc.bigInt({ min: -(2n ** 300n), max: 2n ** 300n }).map(String),
);

const UNRESERVED = /^[A-Za-z0-9_~-]$/;

/**
 * Percent-encodes every byte of the UTF-8 form but the unreserved ones (`.` too, so `..` cannot
 * climb a path; lone surrogates become U+FFFD as any UTF-8 encoder makes them).
 */
export function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      return UNRESERVED.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

/** Percent sequences that are no UTF-8 (`%ff`, overlong, surrogates) or none at all (`%zz`). */
const BAD_PERCENT: readonly string[] = [
  '%ff',
  '%FE%FF',
  '%00',
  '%',
  '%zz',
  '%4',
  '%c0%ae',
  '%c0%af',
  '%ed%a0%80',
  '%f4%90%80%80',
  '%e2%80%ae',
  '%0a',
  '%0d%0a',
  '%20',
  '%2F',
  '%5C',
  '%25',
  '%27%20OR%20%271%27%3D%271',
];

/** The WHATWG URL parser (fetch's) resolves these, so they would never reach the server. */
const isDotSegment = (segment: string) => /^(\.|%2e){1,2}$/i.test(segment);

/** `unit` repeated to about `length` characters. */
const repeated = (unit: string, length: number) => unit.repeat(Math.ceil(length / unit.length));

/** Long values: the service must refuse them quickly, within Node's 16 KiB request head. */
const longValue = (maxLength: number): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.constantFrom('a', 'f', '0', '%ff', '%00', '%27'),
      fc.integer({ min: 200, max: maxLength }),
    )
    .map(([unit, length]) => repeated(unit, length));

/** A path segment or query value as it goes on the wire (already percent-encoded). */
export const hostileWireValue = (maxLength = 6000): fc.Arbitrary<string> =>
  fc
    .oneof(
      fc.constantFrom(...BAD_PERCENT),
      hostileString.map(percentEncode),
      longValue(maxLength),
      // A malformed escape after a plausible value.
      fc
        .tuple(hostileString.map(percentEncode), fc.constantFrom(...BAD_PERCENT))
        .map(([value, bad]) => value + bad),
    )
    .filter((segment) => !isDotSegment(segment));

/** Query-parameter names a route does not expect, some of them shaped like objects. */
export const hostileQueryName: fc.Arbitrary<string> = fc.constantFrom(
  '__proto__',
  'constructor',
  '__proto__[polluted]',
  'constructor[prototype][polluted]',
  'limit[]',
  'owner[0]',
  'offset[a]',
  '%ff',
  '',
  'toString',
  'a'.repeat(1000),
);

/** Header values fetch can send (no CR, LF or NUL; Latin-1 only). */
export const isHeaderSafe = (value: string): boolean => /^[\t\x20-\x7e\x80-\xff]*$/.test(value);

export const hostileHeaderValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    '0',
    '-1',
    '1e3',
    'x'.repeat(4000),
    `0x${'F'.repeat(130)}`,
    '99999999999999999999',
  ),
  hostileString.filter(isHeaderSafe),
);

/** Number literals beyond what JSON.stringify writes: overflow, exponents, negative zero. */
export const RAW_NUMBERS: readonly string[] = [
  '1e400',
  '-1e400',
  '1e-400',
  '-0',
  '1E2',
  '1.0',
  '0.1',
  '4294967296',
  '18446744073709551616',
  String(MAX_UINT256),
  String(MAX_UINT256 + 1n),
  '1'.repeat(400),
];

/** Own `__proto__` / `constructor` keys, as JSON.parse makes them. */
export const PROTOTYPE_KEYS: readonly string[] = [
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '[{"__proto__":{"polluted":true}}]',
];

const nested = (depth: number, open: string, close: string, inner: string) =>
  new RawJson(open.repeat(depth) + inner + close.repeat(depth));

/** A JSON value in a field where another is expected. */
export const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    2 ** 32 - 1,
    2 ** 32,
    2 ** 53,
    -(2 ** 53),
    Number.MAX_VALUE,
    [],
    {},
    [null],
    { '': null },
  ),
  fc.constantFrom(...RAW_NUMBERS).map((text) => new RawJson(text)),
  hostileString,
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(...PROTOTYPE_KEYS).map((text) => new RawJson(text)),
  fc.integer({ min: 10, max: 3000 }).map((depth) => nested(depth, '[', ']', '')),
  fc.integer({ min: 10, max: 1000 }).map((depth) => nested(depth, '{"a":', '}', '1')),
);

/** Bodies that are no JSON, or bytes that are no UTF-8. */
export const hostileRawBody: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.constantFrom<string | Uint8Array>(
    ' ',
    '{',
    '[',
    '{"a":',
    'nul',
    '"',
    '{"a":1,}',
    "{'a':1}",
    '\u0000',
    '{"a":"\u0000"}',
    'NaN',
    'Infinity',
    '\ufeff{}',
    '{"a":1}{"b":2}',
    '['.repeat(5000),
    Uint8Array.from([0xff, 0xfe, 0xfd]),
    Uint8Array.from(Buffer.from('{"fullAppData":"\u00ff"}', 'latin1')),
    Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d]),
    Uint8Array.from([0x5b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x5d]),
  ),
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.uint8Array({ maxLength: 64 }),
);

/** JSON text of a value that may hold `RawJson` pieces and own `__proto__` keys. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map((item) => toJsonText(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${toJsonText(record[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
