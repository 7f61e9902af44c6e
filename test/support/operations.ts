/**
 * Every HTTP operation batchbook serves, described as the OpenAPI spec describes its own: the
 * reference's operations batchbook serves (`specOperations`, from the reference spec as
 * src/http/openapi/reference.json holds it, so a parameter added there reaches every test built
 * on this list), plus the batchbook-only routes (seed §4.1: the v1 solver competition, the token
 * endpoints, an account's notifications and subscriptions; the operators' `/metrics`) in the
 * same shape.
 */
import { NETWORKS } from '../../src/domain/networks.js';
import { specOperations, specSchema, type SchemaObject, type SpecOperation } from './openapi.js';

export interface Operation extends SpecOperation {
  /** `network`: under the order book's `/{network}` prefix; `root`: at the server's root. */
  mount: 'network' | 'root';
  /** The error body of the route: `{errorType, description}`, or the token routes' `{message}`. */
  errors: 'errorType' | 'message';
  /** The size limit of the JSON body in bytes, for routes that take one. */
  bodyLimit: number | null;
}

/** Reference §0: 16 KiB for every body, except the app-data routes' own (default) limit. */
const ORDER_BOOK_BODY_LIMIT = 16 * 1024;
const APP_DATA_BODY_LIMIT = 8192;
/** src/http/routes/subscriptions.ts. */
const SUBSCRIPTION_BODY_LIMIT = 4 * 1024;

/** Every way the token routes accept a chain: ids, path segments and aliases. */
export const CHAIN_REFS: readonly string[] = NETWORKS.flatMap((n) => [
  String(n.chainId),
  n.name,
  ...n.aliases,
]);

const path = (name: string, schema: SchemaObject) =>
  ({ name, in: 'path', required: true, schema }) as const;
const query = (name: string, schema: SchemaObject) =>
  ({ name, in: 'query', required: false, schema }) as const;
const header = (name: string, schema: SchemaObject) =>
  ({ name, in: 'header', required: false, schema }) as const;

/** The body of POST /accounts/{account}/subscriptions (schemas/requests/subscription-create). */
function subscriptionCreate(signature: SchemaObject): SchemaObject {
  const text = (maxLength: number, example: string) => ({ type: 'string', maxLength, example });
  const channel = (properties: SchemaObject) => ({
    type: 'object',
    required: Object.keys(properties),
    properties,
  });
  return {
    type: 'object',
    required: ['channel'],
    properties: {
      channel: {
        oneOf: [
          channel({
            kind: { enum: ['webhook'] },
            url: text(2048, 'https://hooks.example.org/batchbook'),
          }),
          channel({ kind: { enum: ['email'] }, address: text(254, 'owner@example.org') }),
          channel({ kind: { enum: ['telegram'] }, chatId: text(64, '123456789') }),
          channel({
            kind: { enum: ['webpush'] },
            subscription: {
              type: 'object',
              required: ['endpoint', 'keys'],
              properties: {
                endpoint: text(2048, 'https://push.example.org/send/abc'),
                keys: {
                  type: 'object',
                  required: ['p256dh', 'auth'],
                  properties: { p256dh: text(128, 'BNcR'), auth: text(64, 'tBHI') },
                },
              },
            },
          }),
        ],
      },
      issuedAt: { type: 'integer', minimum: 0 },
      signature,
    },
  };
}

/** The routes batchbook serves beyond the spec. `apiKey` is the server's `X-API-Key`. */
function batchbookOperations(apiKey: string): Operation[] {
  const address = specSchema('Address');
  const signature = specSchema('EcdsaSignature');
  const account = path('account', address);
  const credentials = [
    header('X-API-Key', { enum: [apiKey] }),
    header('X-Signature', signature),
    header('X-Issued-At', { type: 'integer', minimum: 0 }),
  ];
  const subscriptionId = path('id', {
    type: 'string',
    format: 'uuid',
    example: '3f2504e0-4f89-41d3-9a0c-0305e82c3301',
  });
  const token = path('token', { anyOf: [address, { enum: ['-'] }] });
  const chainId = path('chainId', { enum: [...CHAIN_REFS] });
  const root = { mount: 'root', errors: 'errorType', bodyLimit: null, requestBody: null } as const;
  return [
    {
      method: 'get',
      path: '/api/v1/solver_competition/{auction_id}',
      operationId: 'getSolverCompetitionByAuctionIdV1',
      parameters: [path('auction_id', { type: 'integer', minimum: 0 })],
      requestBody: null,
      mount: 'network',
      errors: 'errorType',
      bodyLimit: null,
    },
    ...(['usdPrice', 'topHolders'] as const).map((name): Operation => ({
      ...root,
      method: 'get',
      path: `/{chainId}/tokens/{token}/${name}`,
      operationId: name,
      parameters: [
        chainId,
        token,
        ...(name === 'topHolders'
          ? [query('limit', { type: 'integer', minimum: 1, maximum: 100 })]
          : []),
      ],
      errors: 'message',
    })),
    {
      ...root,
      method: 'get',
      path: '/metrics',
      operationId: 'metrics',
      parameters: [credentials[0]!],
    },
    {
      ...root,
      method: 'get',
      path: '/accounts/{account}/notifications',
      operationId: 'getNotifications',
      parameters: [account],
    },
    {
      ...root,
      method: 'post',
      path: '/accounts/{account}/subscriptions',
      operationId: 'subscribe',
      parameters: [account, credentials[0]!],
      requestBody: subscriptionCreate(signature),
      bodyLimit: SUBSCRIPTION_BODY_LIMIT,
    },
    {
      ...root,
      method: 'get',
      path: '/accounts/{account}/subscriptions',
      operationId: 'listSubscriptions',
      parameters: [account, ...credentials],
    },
    {
      ...root,
      method: 'get',
      path: '/accounts/{account}/subscriptions/typed-data',
      operationId: 'getSubscriptionsTypedData',
      parameters: [account],
    },
    {
      ...root,
      method: 'post',
      path: '/accounts/{account}/subscriptions/{id}/verification',
      operationId: 'verifySubscription',
      parameters: [account, subscriptionId],
      requestBody: {
        type: 'object',
        required: ['code'],
        properties: { code: { type: 'string', maxLength: 64, example: '0123-4567-89AB-CDEF' } },
      },
      bodyLimit: SUBSCRIPTION_BODY_LIMIT,
    },
    {
      ...root,
      method: 'delete',
      path: '/accounts/{account}/subscriptions/{id}',
      operationId: 'unsubscribe',
      parameters: [account, subscriptionId, ...credentials],
      requestBody: {
        type: 'object',
        properties: { issuedAt: { type: 'integer', minimum: 0 }, signature },
      },
      bodyLimit: SUBSCRIPTION_BODY_LIMIT,
    },
  ];
}

function bodyLimitOf(op: SpecOperation): number | null {
  if (op.requestBody === null) return null;
  return op.path.startsWith('/api/v1/app_data') ? APP_DATA_BODY_LIMIT : ORDER_BOOK_BODY_LIMIT;
}

/** Every operation batchbook serves: the spec's, then its own. */
export function servedOperations(apiKey: string): Operation[] {
  const fromSpec = specOperations().map((op): Operation => ({
    ...op,
    mount: 'network',
    errors: 'errorType',
    bodyLimit: bodyLimitOf(op),
  }));
  return [...fromSpec, ...batchbookOperations(apiKey)];
}
