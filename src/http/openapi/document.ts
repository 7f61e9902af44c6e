/**
 * The OpenAPI 3.1 document of everything batchbook serves (`GET /openapi.json`), built from
 * three in-repository sources:
 *
 * - the reference's operations with the reference's schemas, as batchbook serves them
 *   (reference.json beside this file: the published spec converted and adjusted by
 *   scripts/generate-openapi-reference.ts, which a unit test keeps in step with it), under the
 *   order book's `/{network}` prefix;
 * - the request bodies: the JSON Schemas of schemas/requests that the routes validate with
 *   (`OrderCreationBody`, …), in place of the reference's;
 * - batchbook's own endpoints (batchbook-api.ts), and the web app's (web-app-api.ts).
 *
 * Components no operation reaches are left out, so the reference's request schemas, replaced
 * here, are not shown as if they were used.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { schemaFile } from '../../../schemas/validators.js';
import { batchbookPaths } from './batchbook-api.js';
import {
  batchbookParameters,
  batchbookSchemas,
  batchbookSecuritySchemes,
} from './batchbook-components.js';
import type { JsonObject } from './builders.js';
import { webAppParameters, webAppPaths, webAppSchemas } from './web-app-api.js';

export const REFERENCE_API_FILE = new URL('./reference.json', import.meta.url);
const REQUEST_SCHEMAS = new URL('../../../schemas/requests/', import.meta.url);

type Json = JsonObject[string];

/** Each reference operation's request body: a schemas/requests file. */
const REQUEST_BODIES: Readonly<Record<string, string>> = {
  createOrder: 'order-creation',
  cancelOrders: 'order-cancellations',
  cancelOrder: 'order-cancellation',
  getOrders: 'order-uids',
  quote: 'order-quote',
  registerAppDataByHash: 'app-data-object',
  registerAppData: 'app-data-object',
};

const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;
const COMPONENT = '#/components/schemas/';
/** The file every request schema refers to by its `$id`. */
const DEFINITIONS = { id: 'definitions', component: 'RequestDefinitions' };

/** Every `$ref` of a schema, replaced by `rewrite`'s answer. */
function rewriteRefs(node: Json, rewrite: (ref: string) => string): Json {
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, rewrite));
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      key === '$ref' && typeof value === 'string' ? rewrite(value) : rewriteRefs(value, rewrite);
  }
  return out;
}

/**
 * A schemas/requests file as a component: named after its `$id` (`OrderCreation` →
 * `OrderCreationBody`, as schemas/validators.ts names its type), its references by `$id` and its
 * own (`#/$defs/…`) turned into references within the document, which every OpenAPI reader
 * follows.
 */
function requestComponent(file: string): [string, JsonObject] {
  const { $id, ...schema } = schemaFile(file) as JsonObject;
  const name = $id === DEFINITIONS.id ? DEFINITIONS.component : `${String($id)}Body`;
  const rewritten = rewriteRefs(schema, (ref) => {
    const [target, pointer] = ref.split('#') as [string, string | undefined];
    if (target === DEFINITIONS.id) return `${COMPONENT}${DEFINITIONS.component}${pointer ?? ''}`;
    if (target === '') return `${COMPONENT}${name}${pointer ?? ''}`;
    throw new Error(`schemas/requests/${file}: cannot place the reference ${ref}`);
  });
  return [name, rewritten as JsonObject];
}

const requestBodyName = (file: string) => requestComponent(file)[0];

/** The reference's path items under `/{network}`, their request bodies batchbook's own. */
function referencePaths(paths: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [path, item] of Object.entries(paths) as [string, JsonObject][]) {
    const served: JsonObject = {
      ...item,
      parameters: [
        { $ref: '#/components/parameters/Network' },
        ...((item.parameters as Json[]) ?? []),
      ],
    };
    for (const method of METHODS) {
      const operation = item[method] as JsonObject | undefined;
      if (!operation) continue;
      served[method] = { ...operation, tags: ['order book'], ...requestBodyOf(operation) };
    }
    out[`/{network}${path}`] = served;
  }
  // The seed spec's path of the competition (the reference serves only v2's): the same answer.
  const v2 = out['/{network}/api/v2/solver_competition/{auction_id}'] as JsonObject;
  out['/{network}/api/v1/solver_competition/{auction_id}'] = {
    ...v2,
    get: {
      ...(v2.get as JsonObject),
      operationId: 'getSolverCompetitionByAuctionIdV1',
      summary: 'The same as `/api/v2/solver_competition/{auction_id}` (the seed spec’s path).',
    },
  };
  return out;
}

function requestBodyOf(operation: JsonObject): JsonObject {
  const requestBody = operation.requestBody as JsonObject | undefined;
  if (!requestBody) return {};
  const file = REQUEST_BODIES[String(operation.operationId)];
  if (!file) throw new Error(`no schemas/requests file for ${String(operation.operationId)}`);
  const schema = { $ref: `${COMPONENT}${requestBodyName(file)}` };
  return { requestBody: { ...requestBody, content: { 'application/json': { schema } } } };
}

/** The names of the components `root` refers to, directly or through other components. */
function reachable(root: Json, schemas: Record<string, Json>): Set<string> {
  const seen = new Set<string>();
  const visit = (node: Json) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT)) {
        const name = value.slice(COMPONENT.length).split('/')[0]!;
        if (!seen.has(name)) {
          seen.add(name);
          visit(schemas[name] ?? null);
        }
      } else visit(value);
    }
  };
  visit(root);
  return seen;
}

function build(version: string): JsonObject {
  const reference = JSON.parse(readFileSync(REFERENCE_API_FILE, 'utf8')) as {
    paths: JsonObject;
    components: { schemas: Record<string, JsonObject> };
  };
  const requests = readdirSync(REQUEST_SCHEMAS)
    .filter((name) => name.endsWith('.schema.json'))
    .map((name) => requestComponent(name.slice(0, -'.schema.json'.length)));
  const allSchemas: Record<string, JsonObject> = {
    ...reference.components.schemas,
    ...Object.fromEntries(requests),
    ...batchbookSchemas,
    ...webAppSchemas,
  };
  const paths = { ...referencePaths(reference.paths), ...batchbookPaths, ...webAppPaths };
  const used = reachable(paths, allSchemas);
  return {
    openapi: '3.1.0',
    info: {
      title: 'batchbook',
      version,
      description:
        "An order book for batch-auction trading on EVM chains, serving the CoW Protocol orderbook API. The order book's operations are the reference's (`/{network}/api/…`), with batchbook's request schemas; the token, notification, operators', documentation and web app endpoints are batchbook's own.",
    },
    servers: [{ url: '/', description: 'this server' }],
    tags: [
      { name: 'order book', description: 'The CoW Protocol orderbook API, per network.' },
      { name: 'tokens', description: 'Token prices and holders, per chain.' },
      { name: 'notifications', description: "An account's notices and delivery channels." },
      { name: 'operators', description: 'Health, readiness and metrics.' },
      { name: 'documentation', description: 'This document and its reference page.' },
      {
        name: 'web app',
        description:
          'The app at `/`, and what it reads beyond the order book: histories, auctions, the live stream.',
      },
    ],
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(allSchemas).filter(([name]) => used.has(name))),
      parameters: { ...batchbookParameters, ...webAppParameters },
      securitySchemes: batchbookSecuritySchemes,
    },
  };
}

const built = new Map<string, JsonObject>();

/** The document, built once per version string. */
export function openApiDocument(version: string): JsonObject {
  let document = built.get(version);
  if (!document) {
    document = build(version);
    built.set(version, document);
  }
  return document;
}
