/**
 * What the web app reads beyond the reference, in OpenAPI 3.1: an order's history, the
 * network's recent auctions and its live stream; and the app itself at `/`. Written after what
 * the routes answer (src/http/routes/orders.ts, auction.ts, live.ts, web-app.ts) and checked
 * against real answers by their integration suites.
 */
import { EVENT_VERSIONS } from '../../domain/events.js';
import { answer, apiError, object, parameter, schema, string, timestamp } from './builders.js';
import type { JsonObject } from './builders.js';

const EVENT_TYPES = Object.keys(EVENT_VERSIONS);
const atoms = (description: string) => string(description, { pattern: '^(0|[1-9][0-9]*)$' });
const integer = (description: string) => ({ type: 'integer', minimum: 0, description });
const webFile = (description: string, mediaTypes: string[]) => ({
  description,
  content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: { type: 'string' } }])),
});

export const webAppPaths: JsonObject = {
  '/{network}/api/v1/orders/{uid}/events': {
    parameters: [parameter('Network'), parameter('OrderUidPath')],
    get: {
      operationId: 'getOrderHistory',
      tags: ['web app'],
      summary: 'Every ledger event that concerns an order, in ledger order.',
      description:
        'Its own events (placed, pre-signed, cancelled, traded, …) whole; of the auctions, those that held it, left it out, traded it in a solution or first saw its `validTo` pass, each `AuctionClosed` cut down to the order (`AuctionExcerpt`); the settlements of the winners that traded it. The most recent 500 auctions that held it are shown.',
      responses: {
        '200': answer('The history, oldest first.', {
          type: 'array',
          items: schema('OrderHistoryEntry'),
        }),
        '400': apiError('A malformed UID (`InvalidParameter`).'),
        '404': apiError('No such order on this network (`NotFound`).'),
        default: apiError('Any other error.'),
      },
    },
  },
  '/{network}/api/v1/auctions': {
    parameters: [parameter('Network')],
    get: {
      operationId: 'getRecentAuctions',
      tags: ['web app'],
      summary: "The network's recent recorded auctions, newest first.",
      description:
        'What to look each competition up by (`/api/v2/solver_competition/{auction_id}`). Auction ids skip: cuts that record nothing take an id too.',
      parameters: [
        {
          name: 'limit',
          in: 'query',
          required: false,
          schema: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
        },
      ],
      responses: {
        '200': answer('The auctions (`[]` before the first).', {
          type: 'array',
          items: schema('AuctionSummary'),
        }),
        '400': apiError('A limit outside 1..100 (`InvalidLimit`).'),
        default: apiError('Any other error.'),
      },
    },
  },
  '/{network}/api/v1/stream': {
    parameters: [parameter('Network')],
    get: {
      operationId: 'getLedgerStream',
      tags: ['web app'],
      summary: "The network's ledger as it moves, as server-sent events.",
      description:
        'The first message, a `network` event, is `{"network": name, "writable": boolean}`: whether orders can be placed here or the network is served read-only. Each later message is a `LedgerNote` as JSON (`x-message-schema`), its `id` the event’s position, sent once the orders, auctions and trades read models show the event: read what changed through the other endpoints. Heartbeat comments every 15 s. A client more than 256 KiB behind is cut off (it reconnects); at most 1,000 streams are open at once.',
      responses: {
        '200': {
          description: 'The stream (`text/event-stream`), open until the client or server leaves.',
          content: {
            'text/event-stream': {
              schema: { type: 'string' },
              'x-message-schema': schema('LedgerNote'),
            },
          },
        },
        '503': apiError('Too many streams are open (`TooManyStreams`).'),
        default: apiError('Any other error.'),
      },
    },
  },
  '/': {
    get: {
      operationId: 'getWebApp',
      tags: ['web app'],
      summary: 'The web app’s page (revalidated on every visit).',
      responses: {
        '200': webFile('The page, brotli or gzip as accepted.', ['text/html']),
        '503': apiError('The app is not built yet: `npm run build:web` (`WebAppNotBuilt`).'),
      },
    },
  },
  '/index.html': {
    get: {
      operationId: 'getWebAppIndex',
      tags: ['web app'],
      summary: 'The same page as `/`.',
      responses: {
        '200': webFile('The page.', ['text/html']),
        '503': apiError('The app is not built yet (`WebAppNotBuilt`).'),
      },
    },
  },
  '/assets/{file}': {
    get: {
      operationId: 'getWebAppAsset',
      tags: ['web app'],
      summary: 'The app’s scripts and styles, named by their content’s hash (cached a year).',
      parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        '200': webFile('The file, brotli or gzip as accepted.', ['text/javascript', 'text/css']),
        '404': apiError('No such file (`NotFound`).'),
        '503': apiError('The app is not built yet (`WebAppNotBuilt`).'),
      },
    },
  },
};

export const webAppSchemas: Record<string, JsonObject> = {
  OrderHistoryEntry: {
    ...object({
      position: string('The event’s ledger position: opaque, increasing along the history.'),
      stream: string('The ledger stream it was appended to, e.g. `order-devnet-0x…`.'),
      revision: integer('Its revision within the stream.'),
      type: { enum: EVENT_TYPES },
      version: { type: 'integer', minimum: 1, description: 'The payload’s version.' },
      recordedAt: timestamp('When the ledger recorded it.'),
      data: {
        type: 'object',
        description:
          'The payload, upcast to the type’s current version; an `AuctionClosed` as far as it concerns the order (`AuctionExcerpt`).',
      },
    }),
    if: { properties: { type: { const: 'AuctionClosed' } } },
    then: { properties: { data: schema('AuctionExcerpt') } },
  },
  AuctionExcerpt: object({
    network: string('The network.'),
    id: integer('The auction.'),
    block: integer('The block its prices are of.'),
    cutAt: timestamp('When it was cut.'),
    deadline: timestamp('When its winners had to settle by.'),
    held: { type: 'boolean', description: 'Whether it held the order.' },
    executed: {
      description: 'What earlier batches had filled of the order by the cut; null when not held.',
      oneOf: [atoms('Atoms.'), { type: 'null' }],
    },
    filtered: {
      description: 'Why it left the order out; null when it did not.',
      type: ['string', 'null'],
    },
    expiry: {
      type: 'boolean',
      description: 'The first auction cut at or after the order’s `validTo`.',
    },
    solutions: {
      type: 'array',
      description: 'The solutions trading the order, best first.',
      items: object({
        solver: string('The solver’s name.'),
        solverAddress: schema('Address'),
        solutionId: { type: ['integer', 'null'] },
        score: atoms('Surplus plus fees, native-token atoms.'),
        rank: { type: 'integer', minimum: 1 },
        isWinner: { type: 'boolean' },
        filteredOut: { type: 'boolean' },
        referenceScore: { oneOf: [atoms('Atoms.'), { type: 'null' }] },
        clearingPrices: {
          type: 'object',
          description: 'The prices of the order’s two tokens.',
          additionalProperties: atoms('A uniform clearing price.'),
        },
        trade: object({
          uid: schema('UID'),
          sellToken: schema('Address'),
          buyToken: schema('Address'),
          executedAmount: atoms('Sell atoms (sell orders) or buy atoms (buy orders).'),
          sellAmount: atoms('Sell atoms the owner pays, the fee included.'),
          buyAmount: atoms('Buy atoms the receiver gets.'),
          fee: atoms('Sell atoms the solver keeps.'),
        }),
      }),
    },
  }),
  AuctionSummary: object({
    id: integer('The auction.'),
    block: integer('The block its prices are of.'),
    cutAt: timestamp('When it was cut.'),
    orders: integer('The orders it held.'),
    filtered: integer('The orders it left out.'),
    solutions: integer('The solutions that competed.'),
  }),
  LedgerNote: object(
    {
      position: string('The event’s ledger position (also the message’s `id`).'),
      type: { enum: EVENT_TYPES },
      network: string('The network.'),
      auctionId: integer('The auction an auction or settlement event is about.'),
      uid: schema('UID'),
      recordedAt: timestamp('When the ledger recorded it.'),
    },
    ['auctionId', 'uid'],
  ),
};

export const webAppParameters: Record<string, JsonObject> = {
  OrderUidPath: {
    name: 'uid',
    in: 'path',
    required: true,
    description: 'The order’s UID (56 bytes as 0x-hex).',
    schema: schema('UID'),
  },
};
