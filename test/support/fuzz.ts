/**
 * Requests generated from operation descriptions (test/support/operations.ts): a `Draft` is a
 * request in the operation's terms (path and query parameters, headers, JSON body) with values
 * its schemas accept, or a test's template (a signed order); `toWire` writes it as sent. The
 * ways of breaking one are in fuzz-mutations.ts, the places values go in fuzz-slots.ts.
 */
import fc from 'fast-check';
import { expect } from 'chai';
import { percentEncode, RawJson, toJsonText } from './hostile.js';
import type { Operation } from './operations.js';
import { validValue } from './schema-values.js';
import type { Answer, WireRequest } from './wire.js';

export type Body = { json: unknown } | { raw: string | Uint8Array };

export interface Draft {
  op: Operation;
  method: string;
  /** The `{network}` segment of order-book routes, as sent. */
  network: string;
  /** Path parameters, as sent (percent-encoded). */
  path: Record<string, string>;
  /** Query parameters, as sent, in order (a name may repeat). */
  query: [string, string][];
  headers: Record<string, string>;
  body: Body | null;
  contentType: string | null;
  /** Send the body chunked, without a Content-Length. */
  chunked: boolean;
}

/** Parts of a request a test fixes instead of generating (a signed order, a real UID). */
export interface Template {
  /** Decoded path-parameter values. */
  path?: Record<string, string>;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface DraftOptions {
  /** `{network}` segments to choose from. */
  networks: readonly string[];
  /** Per operationId: fixed templates, chosen half of the time over generated values. */
  templates?: Readonly<Record<string, readonly Template[]>>;
}

/** How a parameter's value is written in a path, query or header. */
export const paramText = (value: unknown): string =>
  typeof value === 'string' ? value : value instanceof RawJson ? value.text : toJsonText(value);

export const paramsIn = (op: Operation, where: 'path' | 'query' | 'header') =>
  op.parameters.filter((p) => p.in === where);

/** Required parameters always, optional ones sometimes: name → text. */
function paramValues(op: Operation, where: 'path' | 'query' | 'header') {
  return fc.record(
    Object.fromEntries(
      paramsIn(op, where).map((p) => [p.name, validValue(p.schema).map(paramText)]),
    ),
    {
      requiredKeys: paramsIn(op, where)
        .filter((p) => p.required || where === 'path')
        .map((p) => p.name),
    },
  );
}

/** Requests an operation's schemas accept (or a template of the test's). */
export function draftOf(operation: Operation, options: DraftOptions): fc.Arbitrary<Draft> {
  // A counterexample names its operation instead of printing every schema of it.
  const op = { ...operation, [fc.toStringMethod]: () => operation.operationId };
  const generated = fc.record({
    path: paramValues(op, 'path') as fc.Arbitrary<Record<string, string>>,
    body: op.requestBody ? validValue(op.requestBody) : fc.constant(undefined),
  });
  const templates = options.templates?.[op.operationId] ?? [];
  const chosen: fc.Arbitrary<Template> = templates.length
    ? fc.oneof(generated, fc.constantFrom(...templates))
    : generated;
  return fc
    .record({
      template: chosen,
      fallbackPath: paramValues(op, 'path') as fc.Arbitrary<Record<string, string>>,
      query: paramValues(op, 'query') as fc.Arbitrary<Record<string, string>>,
      headers: paramValues(op, 'header') as fc.Arbitrary<Record<string, string>>,
      network: fc.constantFrom(...options.networks),
    })
    .map(({ template, fallbackPath, query, headers, network }) => {
      const decoded = { ...fallbackPath, ...template.path };
      return {
        op,
        method: op.method.toUpperCase(),
        network,
        path: Object.fromEntries(
          Object.entries(decoded).map(([name, value]) => [name, percentEncode(value)]),
        ),
        query: Object.entries(query).map(([name, value]) => [
          percentEncode(name),
          percentEncode(value),
        ]),
        headers: { ...headers, ...template.headers },
        body: template.body === undefined ? null : { json: template.body },
        contentType: template.body === undefined ? null : 'application/json',
        chunked: false,
      };
    });
}

/** One request of the operation: the template's parts (when given) over generated ones. */
export function baseDraft(op: Operation, network: string, template?: Template, seed = 1): Draft {
  const [draft] = fc.sample(draftOf(op, { networks: [network] }), { numRuns: 1, seed });
  if (!template) return draft!;
  const path = Object.entries(template.path ?? {}).map(([name, value]) => [
    name,
    percentEncode(value),
  ]);
  return {
    ...draft!,
    path: { ...draft!.path, ...Object.fromEntries(path) },
    headers: { ...draft!.headers, ...template.headers },
    ...(template.body === undefined
      ? {}
      : { body: { json: template.body }, contentType: 'application/json' }),
  };
}

/** A body's bytes as sent. */
export function bodyBytes(body: Body): Uint8Array {
  if ('json' in body) return Buffer.from(toJsonText(body.json), 'utf8');
  return typeof body.raw === 'string' ? Buffer.from(body.raw, 'utf8') : body.raw;
}

export function toWire(draft: Draft): WireRequest {
  const path = draft.op.path.replace(/\{([^}]+)\}/g, (_, name: string) => draft.path[name] ?? '');
  const prefix = draft.op.mount === 'network' ? `/${draft.network}` : '';
  const query = draft.query.map(([name, value]) => `${name}=${value}`).join('&');
  const body = draft.body && bodyBytes(draft.body);
  return {
    method: draft.method,
    target: `${prefix}${path}${query ? `?${query}` : ''}`,
    headers: {
      ...draft.headers,
      ...(draft.contentType === null || body === null ? {} : { 'content-type': draft.contentType }),
    },
    body,
    chunked: draft.chunked,
  };
}

/**
 * Whether the request still reaches `op`'s route (so its error body has the route's shape): an
 * empty path segment makes the path another route's, or none.
 */
const reachesRoute = (draft: Draft) =>
  Object.values(draft.path).every((segment) => segment !== '') && draft.network !== '';

/** A 4xx answer is JSON with the route's error shape (`{message}` or `{errorType, description}`). */
export function expectErrorShape(draft: Draft, answer: Answer, label: string): void {
  expect(answer.contentType, `${label}: content type`).to.match(/^application\/json/);
  const body = JSON.parse(answer.text) as Record<string, unknown>;
  if (draft.op.errors === 'message' && reachesRoute(draft)) {
    expect(body.message, `${label}: {message}`).to.be.a('string');
  } else {
    expect(body.errorType, `${label}: errorType`).to.be.a('string');
    expect(body.description, `${label}: description`).to.be.a('string');
  }
}
