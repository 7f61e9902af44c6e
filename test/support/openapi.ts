/**
 * Response-shape checks against the reference's published OpenAPI spec
 * (`shared/reference/cow-openapi.yml`, beside the repository), compiled with ajv.
 *
 * The spec is used as published, with three kinds of explicit, commented changes (see
 * `adjust` below):
 *   1. where batchbook follows the reference *code* rather than the spec
 *      (`cow-orderbook-behaviour.md` §9, cited by item number);
 *   2. where the spec cannot validate anything as written (a `oneOf` of two unconstrained
 *      strings never matches exactly one branch);
 *   3. tightenings to what the reference code always emits (§0: lowercase hex, decimal amounts;
 *      §1.2: the fields an `Order` always carries). The spec leaves these open, but a client
 *      (the SDK included) relies on them, so a regression must fail here.
 *
 * OpenAPI 3.0 `nullable` is rewritten to JSON Schema (`anyOf: [{type: null}, …]`): ajv's own
 * `nullable` support needs a sibling `type`, which the spec's `allOf: [$ref]` properties lack.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { expect } from 'chai';
import { parse } from 'yaml';

// ajv-formats is CommonJS with `export default`: under NodeNext the default import is the module.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** CI checks out `shared/` beside the clone, as on the development machines. */
export const OPENAPI_PATH = path.resolve(REPO_ROOT, '../shared/reference/cow-openapi.yml');

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type SchemaObject = { [key: string]: Json };

const SPEC_ID = 'cow-openapi';
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** OpenAPI 3.0 `nullable: true` → JSON Schema; `nullable: false` is the default and dropped. */
function rewriteNullable(node: Json): Json {
  if (Array.isArray(node)) return node.map(rewriteNullable);
  if (node === null || typeof node !== 'object') return node;
  const out: SchemaObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key !== 'nullable') out[key] = rewriteNullable(value);
  }
  return node.nullable === true ? { anyOf: [{ type: 'null' }, out] } : out;
}

/**
 * OpenAPI 3.0 `exclusiveMaximum: true` (a flag on `maximum`) → JSON Schema's numeric bound, which
 * is all ajv accepts (the fee policies' `factor` uses it); likewise for the minimum.
 */
function rewriteExclusiveBounds(node: Json): Json {
  if (Array.isArray(node)) return node.map(rewriteExclusiveBounds);
  if (node === null || typeof node !== 'object') return node;
  const out: SchemaObject = {};
  for (const [key, value] of Object.entries(node)) out[key] = rewriteExclusiveBounds(value);
  for (const [flag, bound] of [
    ['exclusiveMaximum', 'maximum'],
    ['exclusiveMinimum', 'minimum'],
  ] as const) {
    if (typeof out[flag] !== 'boolean') continue;
    if (out[flag] && out[bound] !== undefined) {
      out[flag] = out[bound];
      delete out[bound];
    } else delete out[flag];
  }
  return out;
}

/** The spec's OpenAPI 3.0 schema dialect as the JSON Schema ajv reads. */
const toJsonSchema = (node: Json): Json => rewriteExclusiveBounds(rewriteNullable(node));

const LOWER_HEX_BYTES = '^0x([0-9a-f]{2})*$';

/** Every deliberate difference from the published spec. */
function adjust(schemas: Record<string, SchemaObject>): void {
  const set = (name: string, patch: SchemaObject) => {
    if (!schemas[name]) throw new Error(`cow-openapi.yml has no schema ${name}`);
    schemas[name] = { ...schemas[name], ...patch };
  };

  // --- 1. batchbook follows the reference code (behaviour §9) ---------------------------------
  // §9.1: the property (and what the code reads and writes) is `fullAppData`; the spec's
  // `required: [appData]` names a property that does not exist.
  set('AppDataObject', { required: ['fullAppData'] });
  // §9.2: the code emits NonZeroFee, InvalidValidFrom and Forbidden (403), which the enum lacks;
  // §1.3 "emitted but missing from the spec" adds the replacement-target errors and the quote
  // errors routed through PriceEstimationError; seed §7.2 adds OrderExpired, BuyAmountOverflow
  // and RateLimited for this route.
  const postErrors = (schemas.OrderPostError!.properties as SchemaObject).errorType as SchemaObject;
  set('OrderPostError', {
    properties: {
      ...(schemas.OrderPostError!.properties as SchemaObject),
      errorType: {
        ...postErrors,
        enum: [
          ...(postErrors.enum as string[]),
          'NonZeroFee',
          'InvalidValidFrom',
          'Forbidden',
          'OrderNotFound',
          'AlreadyCancelled',
          'OrderFullyExecuted',
          'OrderExpired',
          'OnChainOrder',
          'NoLiquidity',
          'TradingOutsideAllowedWindow',
          'TokenTemporarilySuspended',
          'InsufficientLiquidity',
          'CustomSolverError',
          'InternalServerError',
          'BuyAmountOverflow',
          'RateLimited',
        ],
      },
    },
  });
  // §9.5: AuctionOrder.created is a JSON number in the code; the spec's example is a string.
  set('AuctionOrder', {
    properties: {
      ...(schemas.AuctionOrder!.properties as SchemaObject),
      created: { type: 'integer' },
    },
  });
  // §9.7: placementError values are camelCase in the code.
  set('OnchainOrderData', {
    properties: {
      ...(schemas.OnchainOrderData!.properties as SchemaObject),
      placementError: {
        type: 'string',
        enum: [
          'validToTooFarInTheFuture',
          'disabledOrderClass',
          'preValidationError',
          'invalidQuote',
          'insufficientFee',
          'nonZeroFee',
          'invalidOrderData',
          'other',
        ],
      },
    },
  });

  // --- 2. spec defects: a oneOf of two unconstrained strings matches both branches, so it fails
  // for every value. With the patterns below the branches are disjoint; eip1271 signatures are
  // arbitrary bytes (reference §1.2), so `Signature` is any hex and the per-scheme shape is
  // checked on `Order` further down.
  set('EcdsaSignature', { pattern: '^0x[0-9a-f]{130}$' });
  set('PreSignature', { pattern: '^0x$' });
  const signature = { ...schemas.Signature! };
  delete signature.oneOf;
  schemas.Signature = {
    ...signature,
    anyOf: [
      ref('EcdsaSignature'),
      ref('PreSignature'),
      { type: 'string', pattern: LOWER_HEX_BYTES },
    ],
  };
  const parameters = schemas.OrderParameters!.properties as SchemaObject;
  const { oneOf: appDataBranches, ...appData } = parameters.appData as SchemaObject;
  parameters.appData = { ...appData, anyOf: appDataBranches! };

  // --- 3. tightenings to what the reference code always emits (behaviour §0, §1.2) -------------
  set('Address', { pattern: '^0x[0-9a-f]{40}$' });
  set('UID', { pattern: '^0x[0-9a-f]{112}$' });
  set('AppDataHash', { pattern: '^0x[0-9a-f]{64}$' });
  set('TransactionHash', { pattern: '^0x[0-9a-f]{64}$' });
  set('CallData', { pattern: LOWER_HEX_BYTES });
  set('TokenAmount', { pattern: '^(0|[1-9][0-9]*)$' });
  set('BigUint', { pattern: '^(0|[1-9][0-9]*)$' });
  const order = schemas.Order!;
  schemas.Order = {
    ...order,
    allOf: [
      ...(order.allOf as Json[]),
      {
        // §1.2 `Order`: "always present" fields (optional ones are omitted when absent).
        required: [
          'creationDate',
          'owner',
          'uid',
          'availableBalance',
          'executedBuyAmount',
          'executedSellAmount',
          'executedSellAmountBeforeFees',
          'executedFeeAmount',
          'executedFee',
          'executedFeeToken',
          'invalidated',
          'status',
          'class',
          'settlementContract',
          'isLiquidityOrder',
          'fullAppData',
          'sellToken',
          'buyToken',
          'receiver',
          'sellAmount',
          'buyAmount',
          'validTo',
          'appData',
          'feeAmount',
          'kind',
          'partiallyFillable',
          'sellTokenBalance',
          'buyTokenBalance',
          'signingScheme',
          'signature',
          'interactions',
        ],
        properties: {
          // §1.2: `availableBalance` is always null; `appData` is always the 32-byte hash.
          availableBalance: { type: 'null' },
          appData: ref('AppDataHash'),
          validTo: { type: 'integer', minimum: 0, maximum: 4294967295 },
          creationDate: { type: 'string', format: 'date-time' },
          interactions: { type: 'object', required: ['pre', 'post'] },
        },
        // §4.2 signing schemes table: what the API returns as `signature` per scheme.
        if: { properties: { signingScheme: { enum: ['eip712', 'ethsign'] } } },
        then: { properties: { signature: ref('EcdsaSignature') } },
        else: {
          if: { properties: { signingScheme: { const: 'presign' } } },
          then: { properties: { signature: ref('PreSignature') } },
        },
      },
    ],
  };
}

interface Loaded {
  ajv: Ajv;
  spec: SchemaObject;
  /** `components.schemas` and `paths` as JSON Schema, with the adjustments above. */
  schemas: Record<string, SchemaObject>;
  paths: SchemaObject;
  validators: Map<string, ValidateFunction>;
}

let loaded: Loaded | undefined;

function load(): Loaded {
  if (loaded) return loaded;
  const spec = parse(readFileSync(OPENAPI_PATH, 'utf8')) as SchemaObject;
  const components = spec.components as { schemas: Record<string, SchemaObject> };
  const schemas = toJsonSchema(structuredClone(components.schemas)) as Record<string, SchemaObject>;
  adjust(schemas);
  const paths = toJsonSchema(structuredClone(spec.paths as Json)) as SchemaObject;
  // The POST /api/v1/orders/by_uids response is an array of these; the spec puts the element
  // schema where the array schema should be (its own description says "each element"), so the
  // element gets a name here.
  const byUids = (
    (
      (
        ((paths['/api/v1/orders/by_uids'] as SchemaObject).post as SchemaObject)
          .responses as SchemaObject
      )['200'] as SchemaObject
    ).content as SchemaObject
  )['application/json'] as SchemaObject;
  schemas.OrdersByUidsResult = byUids.schema as SchemaObject;

  const ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  ajv.addSchema({ $id: SPEC_ID, components: { schemas }, paths } as object);
  loaded = { ajv, spec, schemas, paths, validators: new Map() };
  return loaded;
}

function validatorFor(pointer: string): ValidateFunction {
  const { ajv, validators } = load();
  let validate = validators.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `${SPEC_ID}#${pointer}` });
    validators.set(pointer, validate);
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

function check(label: string, validate: ValidateFunction, value: unknown): void {
  if (validate(value)) return;
  const shown = JSON.stringify(value, null, 1) ?? String(value);
  expect.fail(
    `${label} does not match the OpenAPI schema:\n${describe(validate.errors)}\nvalue: ${shown.slice(0, 3000)}`,
  );
}

/**
 * Asserts that `value` matches `components.schemas[name]` (as adjusted above). `Name[]` checks an
 * array of that schema. `OrdersByUidsResult` is the element of the by_uids response.
 */
export function expectMatchesSchema(name: string, value: unknown): void {
  const isArray = name.endsWith('[]');
  const base = isArray ? name.slice(0, -2) : name;
  const { ajv } = load();
  if (!ajv.getSchema(`${SPEC_ID}#/components/schemas/${base}`)) {
    throw new Error(`unknown schema ${base}`);
  }
  const validate = validatorFor(`/components/schemas/${base}`);
  if (!isArray) return check(name, validate, value);
  expect(value, `${name}: expected an array`).to.be.an('array');
  (value as unknown[]).forEach((item, i) => check(`${name}[${i}]`, validate, item));
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Asserts that `value` matches the JSON schema the spec gives for a response, e.g.
 * `expectMatchesResponse('post', '/api/v1/orders', 201, body)`. Fails when the spec documents
 * no JSON body for that status.
 */
export function expectMatchesResponse(
  method: string,
  specPath: string,
  status: number,
  value: unknown,
): void {
  const { spec } = load();
  const op = ((spec.paths as SchemaObject)[specPath] as SchemaObject | undefined)?.[
    method.toLowerCase()
  ] as SchemaObject | undefined;
  const response = (op?.responses as SchemaObject | undefined)?.[String(status)] as
    SchemaObject | undefined;
  const content = (response?.content as SchemaObject | undefined)?.['application/json'] as
    SchemaObject | undefined;
  if (!content?.schema)
    throw new Error(`the spec has no JSON body for ${method.toUpperCase()} ${specPath} ${status}`);
  const pointer = [
    '/paths',
    specPath,
    method.toLowerCase(),
    'responses',
    String(status),
    'content',
    'application/json',
    'schema',
  ]
    .map((part, i) => (i === 0 ? part : escapePointer(part)))
    .join('/');
  check(`${method.toUpperCase()} ${specPath} ${status}`, validatorFor(pointer), value);
}

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
  if (!target) throw new Error(`cow-openapi.yml: cannot resolve ${$ref}`);
  if (open.includes(name!)) return out;
  return { ...(inline(target, schemas, [...open, name!]) as SchemaObject), ...out };
}

/** `components.schemas[name]` as adjusted above, every `$ref` inlined. */
export function specSchema(name: string): SchemaObject {
  const { schemas } = load();
  if (!schemas[name]) throw new Error(`unknown schema ${name}`);
  return inline(schemas[name], schemas, [name]) as SchemaObject;
}

/**
 * Every operation of the spec (as adjusted above), with its parameters and JSON request body,
 * for tests that generate requests from the spec: a parameter added to the spec is covered
 * without touching them.
 */
export function specOperations(): SpecOperation[] {
  const { schemas, paths } = load();
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
