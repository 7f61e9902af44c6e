/**
 * Wrong values fitted to a schema (the spec's, through test/support/schema-values.ts): numbers
 * at the edges of u32, i64 and uint256 where a number goes, a valid value with NUL or a quote
 * spliced in where a string goes, 129 items where an array goes. `hostileFor` samples them for
 * fuzzing; `boundaryValues` lists them for a sweep of every place.
 */
import fc from 'fast-check';
import {
  hostileJson,
  hostileString,
  MAX_UINT256,
  PROTOTYPE_KEYS,
  RAW_NUMBERS,
  RawJson,
} from './hostile.js';
import type { SchemaObject } from './openapi.js';
import { kindOf, validValue, type ValueKind } from './schema-values.js';

/** The edges of u32, i53, i64, u64 and uint256, floats and exponent notation, as JSON numbers. */
const BOUNDARY_NUMBERS: readonly unknown[] = [
  0,
  -1,
  1.5,
  -1.5,
  2 ** 32 - 1,
  2 ** 32,
  2 ** 53,
  2 ** 53 + 2,
  2 ** 63,
  2 ** 64,
  1e19,
  1e300,
  Number.MAX_VALUE,
  ...RAW_NUMBERS.map((text) => new RawJson(text)),
];

/** Characters that break a layer that is not careful: jsonb, SQL, URLs, terminals. */
const DANGEROUS: readonly string[] = [
  '\u0000',
  '\ud800',
  '\udfff',
  "'",
  '"',
  '\\',
  '%',
  '\n',
  '\u202e',
];

/** `text` with `insert` put in at `at` (modulo its length). */
const spliceInto = (text: string, insert: string, at: number) => {
  const cut = at % (text.length + 1);
  return text.slice(0, cut) + insert + text.slice(cut);
};

/** A value the schema accepts with a hostile string spliced in: `https://x.org/a\u0000b`. */
function spliced(schema: SchemaObject): fc.Arbitrary<string> {
  return fc
    .tuple(validValue(schema), fc.oneof(fc.constantFrom(...DANGEROUS), hostileString), fc.nat())
    .map(([value, insert, at]) =>
      spliceInto(typeof value === 'string' ? value : JSON.stringify(value), insert, at),
    );
}

/** A wrong value for a place of this schema: of its type but out of bounds, or of another. */
export function hostileFor(schema: SchemaObject): fc.Arbitrary<unknown> {
  const ofKind: Record<ValueKind, fc.Arbitrary<unknown>> = {
    string: fc.oneof(spliced(schema), hostileString, fc.constantFrom(...BOUNDARY_NUMBERS)),
    number: fc.oneof(
      fc.constantFrom(...BOUNDARY_NUMBERS),
      validValue(schema).map((value) => String(value)),
    ),
    boolean: fc.constantFrom<unknown>('true', 'false', 1, 0, null, []),
    array: fc.oneof(
      fc.constantFrom<unknown>([], [null], {}),
      // Far more items than any route takes (by_uids: 128).
      fc
        .tuple(validValue(schema), fc.integer({ min: 129, max: 400 }))
        .map(([value, count]) => manyOf(value, count)),
    ),
    object: fc.constantFrom<unknown>({}, [], 'object', new RawJson(PROTOTYPE_KEYS[0]!)),
    any: hostileJson,
  };
  return fc.oneof(
    { arbitrary: ofKind[kindOf(schema)], weight: 4 },
    { arbitrary: hostileJson, weight: 1 },
    { arbitrary: fc.constant(null), weight: 1 },
  );
}

/** `count` copies of an array's first item. */
const manyOf = (array: unknown, count: number) =>
  Array.from({ length: count }, () => (Array.isArray(array) ? (array[0] ?? null) : array));

/** The number edges a sweep sends (a subset of BOUNDARY_NUMBERS: one of each sort). */
const SWEEP_NUMBERS: readonly unknown[] = [
  0,
  -1,
  1.5,
  2 ** 32 - 1,
  2 ** 32,
  2 ** 53 + 2,
  2 ** 63,
  1e300,
  ...['1e400', '-0', '1E2', String(MAX_UINT256 + 1n)].map((text) => new RawJson(text)),
];

/**
 * The edge values of a place, given a value it accepts (`valid`): a fixed list per kind, for a
 * sweep of every place (the fuzzing's random picks reach a given place and value rarely).
 */
export function boundaryValues(
  schema: SchemaObject,
  valid: unknown,
  nowSeconds: number,
): unknown[] {
  const text = typeof valid === 'string' ? valid : JSON.stringify(valid ?? '');
  const wrongTypes = [null, new RawJson(PROTOTYPE_KEYS[0]!)];
  const kind = kindOf(schema);
  if (kind === 'string' && Array.isArray(schema.enum)) {
    return ['', text.toUpperCase(), `${text}\u0000`, 0, ...wrongTypes];
  }
  switch (kind) {
    case 'string':
      return [
        '',
        ' ',
        `${text}\u0000`,
        `${text}\ud800`,
        `${text}'`,
        `${text}\\`,
        insert0(text),
        text.toUpperCase(),
        '-1',
        '1e18',
        String(MAX_UINT256),
        String(MAX_UINT256 + 1n),
        'x'.repeat(10_000),
        0,
        ...wrongTypes,
      ];
    case 'number':
      return [
        // validTo's bounds (reference §4.1: now + 60 s, 3 h for market and a year for limit orders).
        nowSeconds - 1,
        nowSeconds + 59,
        nowSeconds + 10_801,
        nowSeconds + 31_536_001,
        ...SWEEP_NUMBERS,
        String(valid),
        ...wrongTypes,
      ];
    case 'boolean':
      return ['true', 1, ...wrongTypes];
    case 'array':
      return [[], [null], manyOf(valid, 129), ...wrongTypes];
    case 'object':
      return [{}, [], ...wrongTypes];
    case 'any':
      return wrongTypes;
  }
}

/** A NUL in the middle of the value. */
const insert0 = (text: string) => spliceInto(text, '\u0000', Math.floor(text.length / 2));
