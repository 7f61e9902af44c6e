/**
 * The components of batchbook's own endpoints (batchbook-api.ts): the response schemas, written
 * after what the routes answer (src/http/routes/), the parameters and the security schemes.
 */
import { NETWORKS } from '../../domain/networks.js';
import { NOTICE_TYPES } from '../../domain/notices.js';
import { object, schema, string, timestamp, type JsonObject } from './builders.js';

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
