/**
 * What batchbook serves beyond the reference's order book, in OpenAPI 3.1: the token endpoints,
 * an account's notices and delivery channels, the operators' endpoints, this document and its
 * reference page, health. Request bodies are the schemas/requests files (`…Body` components,
 * see document.ts); the response schemas, parameters and security schemes are in
 * batchbook-components.ts, and answers are checked against them by the integration suites.
 */
import {
  answer,
  apiError,
  body,
  messageError,
  parameter,
  schema,
  type JsonObject,
} from './builders.js';

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
