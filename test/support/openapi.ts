/**
 * Response checks against batchbook's own OpenAPI document, the one `GET /openapi.json` serves
 * (src/http/openapi/document.ts): the reference's operations as batchbook serves them and
 * batchbook's own, compiled with ajv in JSON Schema 2020-12, OpenAPI 3.1's dialect.
 *
 * `specOperations` and `specSchema` give the reference's operations alone (as batchbook serves
 * them, src/http/openapi/reference.json), for tests that generate requests from the spec.
 */
import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'chai';
import { openApiDocument, REFERENCE_API_FILE } from '../../src/http/openapi/document.js';
import { http, type HttpResult } from './service.js';

// ajv-formats is CommonJS with `export default`: under NodeNext the default import is the module.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type SchemaObject = { [key: string]: Json };

const DOCUMENT_ID = 'batchbook-openapi';
/** The version the test services answer (BATCHBOOK_VERSION's default). */
const document = openApiDocument('test') as SchemaObject;
const paths = document.paths as Record<string, SchemaObject>;
const schemas = (document.components as { schemas: Record<string, SchemaObject> }).schemas;

let compiled: { ajv: Ajv2020; validators: Map<string, ValidateFunction> } | undefined;

function validatorFor(pointer: string): ValidateFunction {
  if (!compiled) {
    const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
    addFormats(ajv);
    ajv.addSchema({ ...document, $id: DOCUMENT_ID } as object);
    compiled = { ajv, validators: new Map() };
  }
  let validate = compiled.validators.get(pointer);
  if (!validate) {
    validate = compiled.ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
    compiled.validators.set(pointer, validate);
  }
  return validate;
}

function describe(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 12)
    .map(
      (e) =>
        `  ${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)} [${e.schemaPath}]`,
    )
    .join('\n');
}

function check(label: string, pointer: string, value: unknown): void {
  const validate = validatorFor(pointer);
  if (validate(value)) return;
  const shown = JSON.stringify(value, null, 1) ?? String(value);
  expect.fail(
    `${label} does not match the OpenAPI document:\n${describe(validate.errors)}\nvalue: ${shown.slice(0, 3000)}`,
  );
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const pointerTo = (...parts: string[]) => `/${parts.map(escapePointer).join('/')}`;

/**
 * Asserts that `value` matches `components.schemas[name]`. `Name[]` checks an array of that
 * schema. `OrdersByUidsResult` is the element of the by_uids response.
 */
export function expectMatchesSchema(name: string, value: unknown): void {
  const isArray = name.endsWith('[]');
  const base = isArray ? name.slice(0, -2) : name;
  if (!schemas[base]) throw new Error(`the document has no schema ${base}`);
  const pointer = pointerTo('components', 'schemas', base);
  if (!isArray) return check(name, pointer, value);
  expect(value, `${name}: expected an array`).to.be.an('array');
  (value as unknown[]).forEach((item, i) => check(`${name}[${i}]`, pointer, item));
}

/** The document's path of a reference path: the order book's sit under `/{network}`. */
const documentPath = (specPath: string) =>
  specPath.startsWith('/api/') ? `/{network}${specPath}` : specPath;

/**
 * Asserts that `value` matches the JSON body the document gives for a response, e.g.
 * `expectMatchesResponse('post', '/api/v1/orders', 201, body)` (an order-book path as the
 * reference writes it, or a path of the document). Fails when the document has no JSON body for
 * that status.
 */
export function expectMatchesResponse(
  method: string,
  specPath: string,
  status: number,
  value: unknown,
): void {
  const path = documentPath(specPath);
  const response = responseOf(path, method, String(status));
  if (!(response?.content as SchemaObject | undefined)?.['application/json']) {
    throw new Error(`the document has no JSON body for ${method.toUpperCase()} ${path} ${status}`);
  }
  const pointer = pointerTo(
    'paths',
    path,
    method.toLowerCase(),
    'responses',
    String(status),
    'content',
    'application/json',
    'schema',
  );
  check(`${method.toUpperCase()} ${path} ${status}`, pointer, value);
}

function responseOf(path: string, method: string, status: string): SchemaObject | undefined {
  const operation = paths[path]?.[method.toLowerCase()] as SchemaObject | undefined;
  return (operation?.responses as Record<string, SchemaObject> | undefined)?.[status];
}

/** The document's path that serves `pathname`; literal segments win over parameters. */
function documentedPathOf(pathname: string): string | undefined {
  const matching = Object.keys(paths).filter((path) => {
    const pattern = path
      .split(/\{[^}]+\}/)
      .map((literal) => literal.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
      .join('[^/]+');
    return new RegExp(`^${pattern}$`).test(pathname);
  });
  const parameters = (path: string) => (path.match(/\{/g) ?? []).length;
  return matching.sort((a, b) => parameters(a) - parameters(b))[0];
}

/**
 * Asserts that the document describes this answer to `method url`: the operation, its status
 * (or the operation's `default`), the media type, and the JSON body's schema. An answer the
 * document gives no content must have no body.
 */
export function expectDocumented(method: string, url: string, answer: HttpResult): void {
  const { pathname } = new URL(url);
  const label = `${method.toUpperCase()} ${pathname} → ${answer.status}`;
  const path = documentedPathOf(pathname);
  expect(path, `${label}: no documented path`).to.be.a('string');
  const operation = paths[path!]![method.toLowerCase()] as SchemaObject | undefined;
  expect(operation, `${label}: ${method.toUpperCase()} ${path} is not documented`).to.be.an(
    'object',
  );
  const responses = operation!.responses as Record<string, SchemaObject>;
  const status = responses[String(answer.status)] ? String(answer.status) : 'default';
  const response = responses[status];
  expect(response, `${label}: the status is not documented for ${path}`).to.be.an('object');
  const content = response!.content as Record<string, SchemaObject> | undefined;
  if (!content) {
    expect(answer.text, `${label}: documented without a body`).to.equal('');
    return;
  }
  const mediaType = (answer.headers.get('content-type') ?? '').split(';')[0]!.trim();
  expect(Object.keys(content), `${label}: media type`).to.include(mediaType);
  if (content[mediaType]!.schema === undefined || !mediaType.endsWith('json')) return;
  const pointer = pointerTo(
    'paths',
    path!,
    method.toLowerCase(),
    'responses',
    status,
    'content',
    mediaType,
    'schema',
  );
  check(label, pointer, answer.body);
}

/** One request (test/support/service.ts's `http`), its answer checked by `expectDocumented`. */
export async function documentedHttp<T = unknown>(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpResult<T>> {
  const answer = await http<T>(method, url, body, headers);
  expectDocumented(method, url, answer);
  return answer;
}

// --- The reference's operations, for request generators ---------------------------------------

const reference = JSON.parse(readFileSync(REFERENCE_API_FILE, 'utf8')) as {
  paths: Record<string, SchemaObject>;
  components: { schemas: Record<string, SchemaObject> };
};

/** One parameter of an operation, its schema with every `$ref` inlined. */
export interface SpecParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: SchemaObject;
}

/** One operation of the spec: `path` as the spec writes it (`/api/v1/orders/{UID}`). */
export interface SpecOperation {
  method: 'get' | 'post' | 'put' | 'delete' | 'patch';
  path: string;
  operationId: string;
  parameters: SpecParameter[];
  /** The JSON request body's schema (`$ref`s inlined), or null when it takes none. */
  requestBody: SchemaObject | null;
}

const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;
const COMPONENT_REF = '#/components/schemas/';

/**
 * Inlines `#/components/schemas/…` references (siblings such as `description` kept), so a
 * schema can be walked without the spec. A reference back into itself is left open (`{}`).
 */
function inline(node: Json, schemas: Record<string, SchemaObject>, open: string[] = []): Json {
  if (Array.isArray(node)) return node.map((item) => inline(item, schemas, open));
  if (node === null || typeof node !== 'object') return node;
  const { $ref, ...rest } = node;
  const out: SchemaObject = {};
  for (const [key, value] of Object.entries(rest)) out[key] = inline(value, schemas, open);
  if (typeof $ref !== 'string') return out;
  const name = $ref.startsWith(COMPONENT_REF) ? $ref.slice(COMPONENT_REF.length) : null;
  const target = name === null ? undefined : schemas[name];
  if (!target) throw new Error(`reference.json: cannot resolve ${$ref}`);
  if (open.includes(name!)) return out;
  return { ...(inline(target, schemas, [...open, name!]) as SchemaObject), ...out };
}

/** The reference's `components.schemas[name]`, every `$ref` inlined. */
export function specSchema(name: string): SchemaObject {
  const { schemas } = reference.components;
  if (!schemas[name]) throw new Error(`unknown schema ${name}`);
  return inline(schemas[name], schemas, [name]) as SchemaObject;
}

/**
 * Every operation of the reference that batchbook serves, with its parameters and JSON request
 * body, for tests that generate requests from the spec: a parameter added to the spec is covered
 * without touching them.
 */
export function specOperations(): SpecOperation[] {
  const { schemas } = reference.components;
  const { paths } = reference;
  const operations: SpecOperation[] = [];
  for (const [specPath, item] of Object.entries(paths) as [string, SchemaObject][]) {
    const shared = (item.parameters as SchemaObject[] | undefined) ?? [];
    for (const method of METHODS) {
      const op = item[method] as SchemaObject | undefined;
      if (!op) continue;
      const parameters = [...shared, ...((op.parameters as SchemaObject[] | undefined) ?? [])]
        .filter((p) => p.in === 'path' || p.in === 'query' || p.in === 'header')
        .map((p) => ({
          name: p.name as string,
          in: p.in as SpecParameter['in'],
          required: p.required === true,
          schema: inline((p.schema as SchemaObject | undefined) ?? {}, schemas) as SchemaObject,
        }));
      const body = (
        ((op.requestBody as SchemaObject | undefined)?.content as SchemaObject | undefined)?.[
          'application/json'
        ] as SchemaObject | undefined
      )?.schema;
      operations.push({
        method,
        path: specPath,
        operationId: (op.operationId as string | undefined) ?? `${method} ${specPath}`,
        parameters,
        requestBody: body === undefined ? null : (inline(body, schemas) as SchemaObject),
      });
    }
  }
  return operations;
}
