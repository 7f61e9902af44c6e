/**
 * What batchbook serves beyond the reference's order book, in OpenAPI 3.1: the token endpoints,
 * an account's notices and delivery channels, the operators' endpoints, this document and its
 * reference page, health. Request bodies are the schemas/requests files (`…Body` components,
 * see document.ts); the response schemas are here, written after what the routes answer
 * (src/http/routes/) and checked against real answers by the integration suites.
 */
import { NETWORKS } from '../../domain/networks.js';
import { NOTICE_TYPES } from '../../domain/notices.js';
import {
  answer,
  apiError,
  body,
  messageError,
  object,
  parameter,
  schema,
  string,
  timestamp,
  type JsonObject,
} from './builders.js';

export type { JsonObject } from './builders.js';

/** The subscription routes answer these beside their own; 503 while notifications are off. */
const subscriptionErrors = {
  '400': apiError(
    'A malformed account, body or credential, or a refused channel (`InvalidParameter`, `ChannelNotConfigured`, …).',
  ),
  '401': apiError('No valid signature or API key for this account (`Unauthorized`).'),
  '503': apiError('Notifications are off on this server (`NotificationsDisabled`).'),
};
/** A signature (in the body or the headers) or the notifications API key. */
const subscriptionSecurity: JsonObject[] = [{}, { NotificationsApiKey: [] }];
const signedHeaders = [parameter('Signature'), parameter('IssuedAt')];

export const batchbookPaths: JsonObject = {
  '/{chainId}/tokens/{token}/usdPrice': {
    parameters: [parameter('ChainRef'), parameter('TokenRef')],
    get: {
      operationId: 'getTokenUsdPrice',
      tags: ['tokens'],
      summary: "A whole token's value in US dollars.",
      description:
        "Its native price from the pools, divided by that of the network's USD stablecoin, scaled by both tokens' `decimals()`. Cacheable for 30 s. Counts against the caller's price-read budget.",
      responses: {
        '200': {
          ...answer('The price.', schema('UsdPrice')),
          headers: {
            'Cache-Control': { schema: { type: 'string', example: 'public, max-age=30' } },
          },
        },
        '400': messageError('An unknown chain or a malformed address.'),
        '404': messageError(
          'A network that is not live, a token not found, without decimals or without a price.',
        ),
        '429': messageError('Too many price reads; `Retry-After` says when to try again.'),
        default: messageError('Any other error (503: the chain or the database does not answer).'),
      },
    },
  },
  '/{chainId}/tokens/{token}/topHolders': {
    parameters: [parameter('ChainRef'), parameter('TokenRef')],
    get: {
      operationId: 'getTokenTopHolders',
      tags: ['tokens'],
      summary: "A traded token's largest holders, largest first.",
      description:
        'Only tokens the book trades are indexed (from their `Transfer` logs); on a public chain the balances count the transfers from the indexer’s start block on.',
      parameters: [
        {
          name: 'limit',
          in: 'query',
          required: false,
          schema: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
        },
      ],
      responses: {
        '200': answer('The holders.', { type: 'array', items: schema('TokenHolder') }),
        '400': messageError('An unknown chain, a malformed address or limit.'),
        '404': messageError(
          'A network that is not live, the native currency, a token not indexed or without holders.',
        ),
        default: messageError('Any other error.'),
      },
    },
  },
  '/accounts/{account}/notifications': {
    parameters: [parameter('Account')],
    get: {
      operationId: 'getNotifications',
      tags: ['notifications'],
      summary: "An account's notices on every network, newest first.",
      responses: {
        '200': {
          ...answer('The notices (`[]` when there are none).', {
            type: 'array',
            items: schema('Notification'),
          }),
          headers: {
            'Cache-Control': { schema: { type: 'string', example: 'public, max-age=300' } },
          },
        },
        '400': apiError('A malformed address (`InvalidParameter`).'),
        '503': apiError(
          'Notifications are off or not configured on this server (`NotificationsDisabled`).',
        ),
        default: apiError('Any other error.'),
      },
    },
  },
  '/accounts/{account}/subscriptions': {
    parameters: [parameter('Account')],
    post: {
      operationId: 'subscribe',
      tags: ['notifications'],
      summary: 'Subscribe a delivery channel to the account’s notices.',
      description:
        'Authorised by the account’s EIP-712 `Subscribe` signature (with `issuedAt`, in the body) or by `X-API-Key`. Nothing but a verification request reaches the destination until it answers it.',
      security: subscriptionSecurity,
      requestBody: body('SubscriptionCreateBody', 'The channel, and the signature.'),
      responses: {
        '201': answer(
          'Subscribed: the whole channel, a webhook’s `secret` included (shown only here).',
          schema('SubscriptionCreated'),
        ),
        '200': answer(
          'The channel was subscribed already: that subscription, without secrets.',
          schema('Subscription'),
        ),
        ...subscriptionErrors,
        default: apiError('Any other error.'),
      },
    },
    get: {
      operationId: 'listSubscriptions',
      tags: ['notifications'],
      summary: 'The account’s active subscriptions, oldest first (no secrets, no push keys).',
      description:
        'Authorised by a `ListSubscriptions` signature in `X-Signature` and `X-Issued-At`, or by `X-API-Key`.',
      security: subscriptionSecurity,
      parameters: signedHeaders,
      responses: {
        '200': answer('The subscriptions.', { type: 'array', items: schema('Subscription') }),
        ...subscriptionErrors,
        default: apiError('Any other error.'),
      },
    },
  },
  '/accounts/{account}/subscriptions/typed-data': {
    parameters: [parameter('Account')],
    get: {
      operationId: 'getSubscriptionsTypedData',
      tags: ['notifications'],
      summary: 'What subscription requests are signed with on this deployment.',
      responses: {
        '200': answer('The EIP-712 domain and types.', schema('SubscriptionsTypedData')),
        '400': apiError('A malformed address (`InvalidParameter`).'),
        default: apiError('Any other error.'),
      },
    },
  },
  '/accounts/{account}/subscriptions/{id}': {
    parameters: [parameter('Account'), parameter('SubscriptionId')],
    delete: {
      operationId: 'unsubscribe',
      tags: ['notifications'],
      summary: 'Remove a subscription; its deliveries still to come are dropped.',
      description:
        'Authorised by an `Unsubscribe` signature (in a JSON body, or in `X-Signature` and `X-Issued-At`), or by `X-API-Key`.',
      security: subscriptionSecurity,
      parameters: signedHeaders,
      requestBody: { ...body('SubscriptionRemoveBody', 'The signature.'), required: false },
      responses: {
        '200': answer('Removed.', schema('SubscriptionRemoved')),
        ...subscriptionErrors,
        '404': apiError('No such active subscription (`SubscriptionNotFound`).'),
        default: apiError('Any other error.'),
      },
    },
  },
  '/accounts/{account}/subscriptions/{id}/verification': {
    parameters: [parameter('Account'), parameter('SubscriptionId')],
    post: {
      operationId: 'verifySubscription',
      tags: ['notifications'],
      summary: 'Give back the code an e-mail subscription’s address was sent.',
      description: 'No signature: the code is the proof. Within a day of the subscription.',
      requestBody: body('SubscriptionVerifyBody', 'The code.'),
      responses: {
        '200': answer(
          'Verified: notices made from now on are delivered.',
          schema('SubscriptionVerified'),
        ),
        '400': apiError(
          'A wrong or expired code (`InvalidVerificationCode`, `VerificationExpired`), or a malformed request.',
        ),
        '404': apiError('No such active subscription (`SubscriptionNotFound`).'),
        '503': apiError('Notifications are off on this server (`NotificationsDisabled`).'),
        default: apiError('Any other error.'),
      },
    },
  },
  '/metrics': {
    get: {
      operationId: 'getMetrics',
      tags: ['operators'],
      summary: 'Prometheus metrics.',
      security: [{ AdminApiKey: [] }, { AdminBearer: [] }],
      responses: {
        '200': {
          description: 'The Prometheus text exposition.',
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
        '401': apiError('No or a wrong admin API key (`Unauthorized`).'),
        '503': apiError('No `ADMIN_API_KEY` is set on this server (`AdminApiDisabled`).'),
      },
    },
  },
  '/healthz': {
    get: {
      operationId: 'getHealth',
      tags: ['operators'],
      summary: 'Liveness: the process answers. Checks no dependency; needs no key.',
      responses: { '200': answer('Alive.', schema('Health')) },
    },
  },
  '/ready': {
    get: {
      operationId: 'getReadiness',
      tags: ['operators'],
      summary:
        'Readiness of the whole service: the database, the projections, every live network’s RPC and indexer. Needs no key.',
      responses: {
        '200': answer('Ready.', schema('Readiness')),
        '503': answer('Not ready: each failing part named.', schema('Readiness')),
      },
    },
  },
  '/{network}/api/v1/ready': {
    parameters: [parameter('Network')],
    get: {
      operationId: 'getNetworkReadiness',
      tags: ['operators'],
      summary: 'Readiness of one network’s order book, at the reference’s path. Needs no key.',
      responses: {
        '200': answer('Ready.', schema('Readiness')),
        '404': apiError('No such network (`NotFound`).'),
        '503': answer('Not ready: each failing part named.', schema('Readiness')),
      },
    },
  },
  '/openapi.json': {
    get: {
      operationId: 'getOpenApiDocument',
      tags: ['documentation'],
      summary: 'This document.',
      responses: {
        '200': answer('The OpenAPI 3.1 document.', { type: 'object', required: ['openapi'] }),
      },
    },
  },
  '/docs': {
    get: {
      operationId: 'getApiReference',
      tags: ['documentation'],
      summary: 'A readable reference of this document (Swagger UI, served from this server).',
      responses: {
        '200': {
          description: 'The page.',
          content: { 'text/html': { schema: { type: 'string' } } },
        },
      },
    },
  },
  '/docs/{asset}': {
    get: {
      operationId: 'getApiReferenceAsset',
      tags: ['documentation'],
      summary: 'The reference page’s script and style.',
      parameters: [
        {
          name: 'asset',
          in: 'path',
          required: true,
          schema: { enum: ['swagger-ui-bundle.js', 'swagger-ui.css'] },
        },
      ],
      responses: {
        '200': {
          description: 'The file.',
          content: {
            'text/javascript': { schema: { type: 'string' } },
            'text/css': { schema: { type: 'string' } },
          },
        },
        '404': apiError('No such file (`NotFound`).'),
      },
    },
  },
};

const address = schema('Address');

export const batchbookSchemas: Record<string, JsonObject> = {
  MessageError: {
    description: 'A token endpoint’s error.',
    ...object({ message: string('What went wrong.') }),
  },
  UsdPrice: object({ price: { type: 'number', description: 'US dollars per whole token.' } }),
  TokenHolder: object({
    address,
    balance: string('Base units, in decimal.', { pattern: '^(0|[1-9][0-9]*)$' }),
  }),
  Notification: object({
    id: string('The same for the same fact on every replay: receivers de-duplicate by it.'),
    account: address,
    type: { enum: [...NOTICE_TYPES] },
    message: string('Human-readable.'),
    timestamp: timestamp('When the fact it tells of happened.'),
    metadata: {
      type: 'object',
      required: ['orderId', 'network'],
      properties: {
        orderId: schema('UID'),
        network: { enum: NETWORKS.map((n) => n.name) },
        executedAmount: string(
          "Fills and price improvements: the order's total executed amount so far in the unit of its kind: sell-token atoms without the fee for a sell order, buy-token atoms for a buy order.",
        ),
        surplus: string('Price improvement: atoms of `surplusToken` beyond the limit price.'),
        surplusToken: address,
        auctionId: {
          type: 'integer',
          description: 'Expiry and insufficient balance: the auction that saw it.',
        },
      },
    },
  }),
  PublicChannel: {
    description: 'A channel as listings show it: no webhook secret, no push keys.',
    oneOf: [
      object({ kind: { const: 'webhook' }, url: string('The URL notices are POSTed to.') }),
      object({ kind: { const: 'email' }, address: string('The address.') }),
      object({ kind: { const: 'webpush' }, endpoint: string('The push endpoint.') }),
      object({ kind: { const: 'telegram' }, chatId: string('The chat.') }),
    ],
  },
  CreatedChannel: {
    description:
      'A channel as its subscription’s creation shows it: a webhook’s HMAC `secret` (shown only here) and a push subscription’s keys.',
    oneOf: [
      object({
        kind: { const: 'webhook' },
        url: string('The URL notices are POSTed to.'),
        secret: string('Signs each delivery: `X-Batchbook-Signature: sha256=<HMAC-SHA256>`.'),
      }),
      object({ kind: { const: 'email' }, address: string('The address.') }),
      object({
        kind: { const: 'webpush' },
        endpoint: string('The push endpoint.'),
        keys: object({ p256dh: string('Key.'), auth: string('Secret.') }),
      }),
      object({ kind: { const: 'telegram' }, chatId: string('The chat.') }),
    ],
  },
  Verification: object(
    {
      status: { enum: ['pending', 'verified'] },
      method: {
        enum: ['emailCode', 'webhookChallenge', 'telegramCode', 'pushSubscription', 'legacy'],
      },
      code: string('Telegram, while pending: send it to the bot from the chat.'),
    },
    ['code'],
  ),
  Subscription: object({
    id: string('The subscription.'),
    account: address,
    channel: schema('PublicChannel'),
    addedAt: timestamp('When it was added.'),
    verification: schema('Verification'),
  }),
  SubscriptionCreated: object({
    id: string('The subscription.'),
    account: address,
    channel: schema('CreatedChannel'),
    addedAt: timestamp('When it was added.'),
    verification: schema('Verification'),
  }),
  SubscriptionRemoved: object({
    id: string('The subscription.'),
    account: address,
    removedAt: timestamp('When it was removed.'),
  }),
  SubscriptionVerified: object({
    id: string('The subscription.'),
    account: address,
    verifiedAt: timestamp('When it was verified.'),
  }),
  SubscriptionsTypedData: {
    description: 'What `eth_signTypedData_v4` needs, but the message and its primary type.',
    ...object({
      domain: object({
        name: { const: 'batchbook notifications' },
        version: string('The domain’s version.'),
        salt: string("This deployment's identity.", { pattern: '^0x[0-9a-f]{64}$' }),
      }),
      types: {
        type: 'object',
        required: ['EIP712Domain', 'Subscribe', 'ListSubscriptions', 'Unsubscribe'],
        additionalProperties: {
          type: 'array',
          items: object({ name: { type: 'string' }, type: { type: 'string' } }),
        },
      },
    }),
  },
  Health: object({ status: { const: 'ok' } }),
  Readiness: object({
    ready: { type: 'boolean' },
    failing: {
      type: 'array',
      items: {
        type: 'object',
        required: ['part', 'reason'],
        properties: {
          part: string('What is not ready, e.g. `database`, a projector or a network.'),
          reason: string('Why, in words that show no configuration.'),
        },
      },
    },
    checked: {
      type: 'array',
      description:
        'Every part checked: `database`, `projection-thread`, `projector:<name>`, `rpc:<network>`, `indexer:<network>`.',
      items: { type: 'string' },
    },
  }),
};

export const batchbookParameters: Record<string, JsonObject> = {
  Network: {
    name: 'network',
    in: 'path',
    required: true,
    description: "The order book's network.",
    schema: { enum: NETWORKS.map((n) => n.name) },
  },
  ChainRef: {
    name: 'chainId',
    in: 'path',
    required: true,
    description:
      'A chain id or a network name (`1`, `mainnet`, `ethereum`, `100`, `xdai`, `gnosis`, `31337`, `devnet`, …).',
    schema: {
      enum: NETWORKS.flatMap((n) => [String(n.chainId), n.name, ...n.aliases]),
    },
  },
  TokenRef: {
    name: 'token',
    in: 'path',
    required: true,
    description:
      'A token address in any case, with or without `0x`, or `-` for the native currency.',
    schema: { type: 'string', example: '-' },
  },
  Account: {
    name: 'account',
    in: 'path',
    required: true,
    description: 'An address in any case, with or without `0x`.',
    schema: { type: 'string', example: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266' },
  },
  SubscriptionId: {
    name: 'id',
    in: 'path',
    required: true,
    schema: { type: 'string', maxLength: 64 },
  },
  Signature: {
    name: 'X-Signature',
    in: 'header',
    required: false,
    description: "The account's EIP-712 signature of the request, 65 bytes as 0x-hex.",
    schema: { type: 'string', pattern: '^0x[0-9a-fA-F]{130}$' },
  },
  IssuedAt: {
    name: 'X-Issued-At',
    in: 'header',
    required: false,
    description: 'The `issuedAt` the signature covers: unix seconds, within 5 minutes of now.',
    schema: { type: 'string', pattern: '^[0-9]{1,15}$' },
  },
};

export const batchbookSecuritySchemes: Record<string, JsonObject> = {
  AdminApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: '`ADMIN_API_KEY`.' },
  AdminBearer: {
    type: 'http',
    scheme: 'bearer',
    description: '`ADMIN_API_KEY` as a bearer token.',
  },
  NotificationsApiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: '`NOTIFICATIONS_API_KEY`: manages any account’s channels.',
  },
};
