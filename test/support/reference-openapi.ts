/**
 * The reference's published OpenAPI spec (`shared/reference/cow-openapi.yml`, beside the
 * repository) as batchbook serves it: the operations batchbook serves, in OpenAPI 3.1's dialect
 * (JSON Schema 2020-12), with explicit, commented changes (see `adjust` below):
 *   1. where batchbook follows the reference *code* rather than the spec
 *      (`cow-orderbook-behaviour.md` §9, cited by item number);
 *   2. where the spec cannot validate anything as written (a `oneOf` of two unconstrained
 *      strings never matches exactly one branch; the by_uids response given as its element);
 *   3. tightenings to what the reference code always emits (§0: lowercase hex, decimal amounts;
 *      §1.2: the fields an `Order` always carries). The spec leaves these open, but a client
 *      (the SDK included) relies on them, so a regression must fail the suites that check them.
 *
 * The service cannot read `shared/` at run time (a production install has only the repository),
 * so `scripts/generate-openapi-reference.ts` writes this result into the repository
 * (src/http/openapi/reference.json), where the served document reads it; a unit test fails while
 * the committed file differs from it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** CI checks out `shared/` beside the clone, as on the development machines. */
export const REFERENCE_OPENAPI_PATH = path.resolve(
  REPO_ROOT,
  '../shared/reference/cow-openapi.yml',
);

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type SchemaObject = { [key: string]: Json };

/** The spec's operations batchbook does not serve, and why. */
const NOT_SERVED: ReadonlyMap<string, string> = new Map([
  // The reference streams quotes over SSE; batchbook answers the plain quote only.
  ['/api/v1/quote/stream', 'not implemented'],
]);
/** The reference's debug routes, restricted at its infrastructure level (behaviour §0). */
const RESTRICTED_PREFIX = '/restricted/';

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

export interface ReferenceApi {
  paths: SchemaObject;
  components: { schemas: Record<string, SchemaObject> };
}

/** The reference's served operations and their schemas, converted and adjusted as above. */
export function referenceApi(): ReferenceApi {
  const spec = parse(readFileSync(REFERENCE_OPENAPI_PATH, 'utf8')) as SchemaObject;
  const components = spec.components as { schemas: Record<string, SchemaObject> };
  const schemas = toJsonSchema(structuredClone(components.schemas)) as Record<string, SchemaObject>;
  adjust(schemas);
  const paths: SchemaObject = {};
  for (const [specPath, item] of Object.entries(spec.paths as SchemaObject)) {
    if (specPath.startsWith(RESTRICTED_PREFIX) || NOT_SERVED.has(specPath)) continue;
    paths[specPath] = toJsonSchema(structuredClone(item));
  }
  // The POST /api/v1/orders/by_uids response is an array of these; the spec puts the element
  // schema where the array schema should be (its own description says "each element"), so the
  // element gets a name and the response becomes its array.
  const byUids = (
    (
      (
        ((paths['/api/v1/orders/by_uids'] as SchemaObject).post as SchemaObject)
          .responses as SchemaObject
      )['200'] as SchemaObject
    ).content as SchemaObject
  )['application/json'] as SchemaObject;
  schemas.OrdersByUidsResult = byUids.schema as SchemaObject;
  byUids.schema = { type: 'array', items: ref('OrdersByUidsResult') };

  // Behaviour §1.1 rows 2 and 5: a cancellation answers the JSON string "Cancelled" (the spec
  // shows no body); the version is a string of text.
  for (const specPath of ['/api/v1/orders', '/api/v1/orders/{UID}']) {
    responsesOf(paths, specPath, 'delete')['200'] = {
      description: 'The orders are cancelled.',
      content: { 'application/json': { schema: { const: 'Cancelled' } } },
    };
  }
  responsesOf(paths, '/api/v1/version', 'get')['200'] = {
    description: 'The version.',
    content: { 'text/plain': { schema: { type: 'string' } } },
  };
  for (const item of Object.values(paths) as SchemaObject[]) {
    for (const method of METHODS) {
      if (item[method]) answerErrorsAsBatchbook(item[method] as SchemaObject);
    }
  }
  schemas.ApiError = API_ERROR;
  return { paths, components: { schemas } };
}

const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;

function responsesOf(paths: SchemaObject, specPath: string, method: string): SchemaObject {
  return ((paths[specPath] as SchemaObject)[method] as SchemaObject).responses as SchemaObject;
}

/** README, API: every order-book error is this JSON body. */
const API_ERROR: SchemaObject = {
  description: "An order-book error: `errorType` is the reference's code where it has one.",
  type: 'object',
  required: ['errorType', 'description'],
  properties: {
    errorType: { type: 'string', example: 'InvalidParameter' },
    description: { type: 'string' },
    data: { description: 'details some errors carry, e.g. `fee_amount`' },
  },
};

/**
 * Errors as batchbook answers them on every order-book route: a JSON `{errorType, description}`
 * wherever the spec shows no body; 400 `InvalidParameter` or `InvalidJson` where the spec says
 * 422 (README, API), so no 422; and the errors any route may meet (413, 415, 429, 503
 * `NetworkNotLive`, `ChainUnavailable` or `DatabaseUnavailable`, …) as the default response.
 */
function answerErrorsAsBatchbook(operation: SchemaObject): void {
  const responses = operation.responses as SchemaObject;
  delete responses['422'];
  for (const [status, response] of Object.entries(responses) as [string, SchemaObject][]) {
    if (Number(status) >= 400 && response.content === undefined) {
      response.content = { 'application/json': { schema: ref('ApiError') } };
    }
  }
  responses.default = {
    description:
      'Any other error: a body of the wrong shape or size or encoding (400, 413, 415), too many requests (429), a network that is not live or a dependency that does not answer (503).',
    content: { 'application/json': { schema: ref('ApiError') } },
  };
}
