/**
 * Ways of breaking a request (`Mutation`s, plain data so a counterexample reads well): a hostile
 * path segment, query value or header; a body field given a wrong value of a fitting kind, or
 * deleted, or a `__proto__` key beside it; a body that is no JSON or no UTF-8; a wrong content
 * type, content encoding or method; an unknown network.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { Draft } from './fuzz.js';
import { bodyBytes, paramsIn, paramText } from './fuzz.js';
import { hostileFor } from './edge-values.js';
import {
  hostileHeaderValue,
  hostileJson,
  hostileQueryName,
  hostileRawBody,
  hostileWireValue,
  percentEncode,
  RawJson,
} from './hostile.js';
import type { SchemaObject } from './openapi.js';
import type { Operation } from './operations.js';
import { uniquePlaces } from './schema-values.js';

export type Mutation =
  | { kind: 'place'; pointer: string; value: unknown }
  | { kind: 'path'; name: string; value: string }
  | { kind: 'network'; value: string }
  | { kind: 'query'; name: string; value: string; append: boolean }
  | { kind: 'header'; name: string; value: string }
  | { kind: 'field'; pick: number; action: 'replace' | 'delete' | 'prototype'; value: unknown }
  | { kind: 'body'; value: unknown }
  | { kind: 'raw'; value: string | Uint8Array }
  | { kind: 'noBody' }
  | { kind: 'contentType'; value: string | null }
  /** `encoded`: the body is encoded so, where the coding is one a server may decode. */
  | { kind: 'contentEncoding'; value: string; encoded: boolean }
  | { kind: 'method'; value: string };

const NETWORK_SEGMENTS = [
  'moonnet',
  'MAINNET',
  'Devnet',
  // Known networks without an RPC URL here: reads serve, writes are 503 NetworkNotLive.
  'xdai',
  'sepolia',
  '1',
  '31337',
  'api',
  'accounts',
  '__proto__',
  'constructor',
];

const CONTENT_TYPES = [
  null,
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; charset=nonsense',
  'application/jsonx',
  'application/vnd.api+json',
  '*/*',
];

const CONTENT_ENCODINGS = [
  'gzip',
  'deflate',
  'br',
  'identity',
  'GZIP',
  'xyz',
  'compress',
  'x-gzip',
  'gzip, br',
  'identity, gzip',
  '',
];

const ENCODERS: Readonly<Record<string, (bytes: Uint8Array) => Uint8Array>> = {
  gzip: gzipSync,
  deflate: deflateSync,
  br: brotliCompressSync,
};

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];

/** A wrong value for a parameter, as sent: fitted to its schema, or anything hostile. */
const hostileParam = (schema: SchemaObject, maxLength: number) =>
  fc.oneof(
    hostileFor(schema).map((value) => percentEncode(paramText(value)).slice(0, maxLength)),
    hostileWireValue(maxLength),
  );

/**
 * One way of breaking a request of `op`, weighted towards what its schemas describe: a body
 * field or parameter given a wrong value of a fitting kind.
 */
export function mutationOf(op: Operation): fc.Arbitrary<Mutation> {
  const params = (where: 'path' | 'query' | 'header') => paramsIn(op, where);
  const weighted = (weight: number, arbitrary: fc.Arbitrary<Mutation>) => ({ weight, arbitrary });
  const kinds: { weight: number; arbitrary: fc.Arbitrary<Mutation> }[] = [
    weighted(
      1,
      fc
        .record({
          pick: fc.nat(),
          action: fc.constantFrom('replace' as const, 'delete' as const, 'prototype' as const),
          value: hostileJson,
        })
        .map((m) => ({ kind: 'field', ...m })),
    ),
    weighted(
      1,
      hostileJson.map((value) => ({ kind: 'body', value })),
    ),
    weighted(
      1,
      hostileRawBody.map((value) => ({ kind: 'raw', value })),
    ),
    weighted(1, fc.constant({ kind: 'noBody' })),
    weighted(
      1,
      fc.constantFrom(...CONTENT_TYPES).map((value) => ({ kind: 'contentType', value })),
    ),
    weighted(
      1,
      fc
        .record({ value: fc.constantFrom(...CONTENT_ENCODINGS), encoded: fc.boolean() })
        .map((m) => ({ kind: 'contentEncoding', ...m })),
    ),
    weighted(
      1,
      fc
        .constantFrom(...METHODS.filter((m) => m !== op.method.toUpperCase()))
        .map((value) => ({ kind: 'method', value })),
    ),
    weighted(
      1,
      fc
        .record({ name: hostileQueryName, value: hostileWireValue(4000), append: fc.boolean() })
        .map((m) => ({ kind: 'query', ...m })),
    ),
  ];
  const bodyPlaces = op.requestBody ? uniquePlaces(op.requestBody) : [];
  if (bodyPlaces.length) {
    const place = fc.oneof(
      ...bodyPlaces.map(({ pointer, schema }) =>
        hostileFor(schema).map((value): Mutation => ({ kind: 'place', pointer, value })),
      ),
    );
    kinds.push(weighted(6, place));
  }
  if (params('path').length) {
    const path = fc.oneof(
      ...params('path').map((p) =>
        hostileParam(p.schema, 6000).map((value): Mutation => ({
          kind: 'path',
          name: p.name,
          value,
        })),
      ),
    );
    kinds.push(weighted(4, path));
  }
  if (params('query').length) {
    const query = fc.oneof(
      ...params('query').map((p) =>
        fc
          .tuple(hostileParam(p.schema, 4000), fc.boolean())
          .map(([value, append]): Mutation => ({ kind: 'query', name: p.name, value, append })),
      ),
    );
    kinds.push(weighted(3, query));
  }
  if (op.mount === 'network') {
    const network = fc.oneof(fc.constantFrom(...NETWORK_SEGMENTS), hostileWireValue(2000));
    kinds.push(
      weighted(
        1,
        network.map((value) => ({ kind: 'network', value })),
      ),
    );
  }
  // Every route sits behind `app.proxy`, which reads X-Forwarded-For (the rate limits use it).
  const headers = [...params('header').map((p) => p.name), 'X-Forwarded-For'];
  kinds.push(
    weighted(
      params('header').length ? 2 : 1,
      fc
        .record({ name: fc.constantFrom(...headers), value: hostileHeaderValue })
        .map((m) => ({ kind: 'header', ...m })),
    ),
  );
  return fc.oneof(...kinds);
}

/** A copy of a JSON value that keeps `RawJson` pieces and own `__proto__` keys. */
function copy(value: unknown): unknown {
  if (value instanceof RawJson || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copy);
  const out = {};
  for (const key of Object.keys(value))
    define(out, key, copy((value as Record<string, unknown>)[key]));
  return out;
}

/** Sets an own property, `__proto__` included (plain assignment would set the prototype). */
function define(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/** Every member of a JSON value: its container and key. */
function members(value: unknown): { container: object; key: string }[] {
  if (value instanceof RawJson || value === null || typeof value !== 'object') return [];
  return Object.keys(value).flatMap((key) => [
    { container: value, key },
    ...members((value as Record<string, unknown>)[key]),
  ]);
}

function mutateField(body: unknown, m: Extract<Mutation, { kind: 'field' }>): unknown {
  const root = copy(body);
  const all = members(root);
  if (all.length === 0) return m.action === 'prototype' ? new RawJson(PROTOTYPE_BODY) : m.value;
  const { container, key } = all[m.pick % all.length]!;
  if (m.action === 'replace') define(container, key, m.value);
  else if (m.action === 'prototype') define(container, '__proto__', m.value);
  else if (Array.isArray(container)) container.splice(Number(key), 1);
  else delete (container as Record<string, unknown>)[key];
  return root;
}

/** The value with `value` set at `pointer`, containers made on the way where missing. */
function setAt(body: unknown, pointer: string, value: unknown): unknown {
  const keys = pointer.split('/').slice(1);
  const root = copy(body);
  const container = (holder: unknown, next: string): object =>
    holder !== null && typeof holder === 'object' && !(holder instanceof RawJson)
      ? holder
      : /^\d+$/.test(next)
        ? []
        : {};
  const top = container(root, keys[0]!);
  let at: object = top;
  keys.forEach((key, i) => {
    if (i === keys.length - 1) return define(at, key, value);
    const child = container((at as Record<string, unknown>)[key], keys[i + 1]!);
    define(at, key, child);
    at = child;
  });
  return top;
}

const PROTOTYPE_BODY =
  '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}';

export function applyMutation(draft: Draft, m: Mutation): Draft {
  switch (m.kind) {
    case 'place': {
      const json = draft.body && 'json' in draft.body ? draft.body.json : undefined;
      return {
        ...draft,
        body: { json: setAt(json, m.pointer, m.value) },
        contentType: draft.contentType ?? 'application/json',
      };
    }
    case 'path':
      return { ...draft, path: { ...draft.path, [m.name]: m.value } };
    case 'network':
      return { ...draft, network: m.value };
    case 'query': {
      const kept = m.append ? draft.query : draft.query.filter(([name]) => name !== m.name);
      return { ...draft, query: [...kept, [m.name, m.value]] };
    }
    case 'header':
      return { ...draft, headers: { ...draft.headers, [m.name]: m.value } };
    case 'field': {
      const json = draft.body && 'json' in draft.body ? draft.body.json : undefined;
      return {
        ...draft,
        body: { json: mutateField(json, m) },
        contentType: draft.contentType ?? 'application/json',
      };
    }
    case 'body':
      return { ...draft, body: { json: m.value }, contentType: 'application/json' };
    case 'raw':
      return { ...draft, body: { raw: m.value }, contentType: 'application/json' };
    case 'noBody':
      return { ...draft, body: null };
    case 'contentType':
      return { ...draft, contentType: m.value };
    case 'contentEncoding': {
      const headers = { ...draft.headers, 'Content-Encoding': m.value };
      const encode = m.encoded ? ENCODERS[m.value.toLowerCase()] : undefined;
      if (!encode || !draft.body) return { ...draft, headers };
      return { ...draft, headers, body: { raw: encode(bodyBytes(draft.body)) } };
    }
    case 'method':
      return { ...draft, method: m.value };
  }
}
