/**
 * Every endpoint, fuzzed from its OpenAPI description (test/support/operations.ts: the spec's
 * operations plus batchbook's own): requests generated from the parameters' and bodies'
 * schemas, then broken (hostile path segments, query values and headers, wrong-typed, boundary,
 * prototype-keyed and deeply nested body fields, bodies that are no JSON or no UTF-8, wrong
 * content types and methods, unknown networks, oversized bodies, very long URLs).
 *
 * For every request: no 5xx (a client's mistake is a 4xx; the one 5xx allowed is a write to a
 * known network this server has no RPC URL for, 503 NetworkNotLive by design); a 4xx is JSON
 * in the route's error shape; a rejected request writes nothing (the ledger, and the delivery
 * outbox for the subscription routes). After each test the service still answers and no
 * `__proto__` key reached Object.prototype (the service runs in this process).
 *
 * http-never-500.property.test.ts throws mutations of a valid signed order at the write
 * endpoints; this suite covers every route from the spec.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { sharedTestChain } from '../support/chain.js';
import {
  baseDraft,
  draftOf,
  expectErrorShape,
  toWire,
  type Draft,
  type Template,
} from '../support/fuzz.js';
import { applyMutation, mutationOf } from '../support/fuzz-mutations.js';
import { slotsOf, valueIn, withValue } from '../support/fuzz-slots.js';
import { boundaryValues } from '../support/edge-values.js';
import { percentEncode, RawJson } from '../support/hostile.js';
import { watchWrites, type LedgerWatch } from '../support/ledger-watch.js';
import { servedOperations, type Operation } from '../support/operations.js';
import { fundedWallet } from '../support/owners.js';
import { startTestService, type TestService } from '../support/service.js';
import { describeWire, send, type Answer } from '../support/wire.js';
import {
  CHAIN_ID,
  EMPTY_APP_DATA_HASH,
  signCancellation,
  signCancellations,
  signOrder,
} from '../support/signing.js';

const API_KEY = 'fuzz-api-key';
/** Mostly the devnet, where writes go deepest; mainnet is live too, xdai is not. */
const NETWORKS = ['devnet', 'devnet', 'devnet', 'mainnet', 'xdai'];
/** Node's limit on a request's head (request line and headers) is 16 KiB. */
const NODE_MAX_HEADER_BYTES = 16 * 1024;

describe('property: every endpoint, fuzzed from the OpenAPI spec', function () {
  this.timeout(120_000);
  let service: TestService;
  let watch: LedgerWatch;
  const operations: Operation[] = servedOperations(API_KEY);
  const templates: Record<string, Template[]> = {};

  before(async () => {
    service = await startTestService({
      env: { NOTIFICATIONS_API_KEY: API_KEY, ADMIN_API_KEY: API_KEY },
    });
    // Real requests to break: a signed order (not placed: the fuzz may place it once), and a
    // placed one with its signed cancellations, so mutations reach signature checks and below.
    const wallet = await fundedWallet();
    const fresh = await signOrder(wallet, CHAIN_ID.devnet, { sellAmount: '1000000000000000' });
    const placed = await signOrder(wallet, CHAIN_ID.devnet);
    const response = await fetch(`${service.devnet}/api/v1/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(placed.body),
    });
    expect(response.status, await response.text()).to.equal(201);
    const { deployment } = await sharedTestChain();
    const uid = { UID: placed.uid };
    const key = { 'X-API-Key': API_KEY };
    Object.assign(templates, {
      createOrder: [{ body: fresh.body }],
      cancelOrders: [{ body: await signCancellations(wallet, CHAIN_ID.devnet, [placed.uid]) }],
      cancelOrder: [
        { path: uid, body: await signCancellation(wallet, CHAIN_ID.devnet, placed.uid) },
      ],
      getOrder: [{ path: uid }],
      getOrderStatus: [{ path: uid }],
      getOrders: [{ body: [placed.uid] }],
      getUserOrdersPaginated: [{ path: { owner: placed.owner } }],
      registerAppDataByHash: [
        { path: { app_data_hash: EMPTY_APP_DATA_HASH }, body: { fullAppData: '{}' } },
      ],
      quote: [
        {
          body: {
            sellToken: deployment.weth.address,
            buyToken: deployment.tokens[0]!.address,
            from: placed.owner,
            kind: 'sell',
            sellAmountBeforeFee: '1000000000000000000',
          },
        },
      ],
      // With the API key, so that mutations get past authorisation to the channel's checks.
      subscribe: [
        {
          headers: key,
          body: { channel: { kind: 'webhook', url: 'https://hooks.example.org/a' } },
        },
      ],
      listSubscriptions: [{ headers: key }],
      unsubscribe: [{ headers: key }],
    } satisfies Record<string, Template[]>);
    watch = await watchWrites(service.ledger, service.databaseUrl);
  });
  after(async () => {
    await watch?.close();
    await service?.stop();
  });

  afterEach(async () => {
    const version = await fetch(`${service.devnet}/api/v1/version`);
    expect(version.status, 'the service stopped answering').to.equal(200);
    expect(Object.keys(Object.prototype), 'Object.prototype was polluted').to.deep.equal([]);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });

  const isSubscriptionRoute = (op: Operation) => op.path.startsWith('/accounts/');

  /** A write to a known network without an RPC URL: the one deliberate 5xx (DESIGN.md §6). */
  const networkNotLive = (answer: Answer) =>
    answer.status === 503 && answer.text.includes('"errorType":"NetworkNotLive"');

  /** Sends the request and checks the invariants every answer must keep. */
  async function exchange(draft: Draft): Promise<Answer> {
    const wire = toWire(draft);
    const outbox = isSubscriptionRoute(draft.op) ? await watch.outboxRows() : 0;
    const answer = await send(service.url, wire);
    const label = `${describeWire(wire)}\n  → ${answer.status} ${answer.text.slice(0, 300)}`;
    if (!networkNotLive(answer)) expect(answer.status, label).to.be.below(500);
    const written = await watch.appended();
    if (answer.status >= 400) {
      expect(
        written.map((e) => `${e.type} ${e.stream}`),
        `${label}\n  wrote`,
      ).to.deep.equal([]);
      if (isSubscriptionRoute(draft.op)) expect(await watch.outboxRows(), label).to.equal(outbox);
      if (answer.status < 500) expectErrorShape(draft, answer, label);
    }
    return answer;
  }

  const options = { networks: NETWORKS, templates };
  const devnetOnly = { ...options, networks: ['devnet'] };
  const withBodies = operations.filter((op) => op.bodyLimit !== null);
  // Built once: an arbitrary built per run (with `chain`) costs more than the request it makes.
  const broken = fc.oneof(
    ...operations.map((op) =>
      fc.tuple(draftOf(op, options), fc.array(mutationOf(op), { maxLength: 3 })),
    ),
  );
  const anyDraft = fc.oneof(...operations.map((op) => draftOf(op, options)));
  const anyBodyDraft = fc.oneof(...withBodies.map((op) => draftOf(op, devnetOnly)));

  /** A request to the operation, its parts given (path values percent-encoded). */
  function request(operationId: string, parts: Partial<Draft>): Draft {
    const op = operations.find((o) => o.operationId === operationId)!;
    return {
      op,
      method: op.method.toUpperCase(),
      network: 'devnet',
      path: {},
      query: [],
      headers: {},
      body: null,
      contentType: 'application/json',
      chunked: false,
      ...parts,
    };
  }

  it('routes every operation it describes', async () => {
    for (const op of operations) {
      const [draft] = fc.sample(draftOf(op, devnetOnly), { numRuns: 1, seed: 7 });
      const answer = await exchange(draft!);
      expect(answer.text, `${op.method} ${op.path}`).not.to.match(/no route for|unknown network/);
    }
  });

  it('answers the edge values of every body field and parameter of every endpoint', async () => {
    // A sweep, not a sample: every place gets every edge value of its kind once, on the
    // operation's template where there is one (a signed order, a quote request, ...).
    const now = Math.floor(Date.now() / 1000);
    for (const op of operations) {
      const base = baseDraft(op, 'devnet', templates[op.operationId]?.[0]);
      // The {network} segment is the same middleware for every route: the fuzzing covers it.
      for (const slot of slotsOf(op).filter((s) => s.where !== 'network')) {
        for (const value of boundaryValues(slot.schema, valueIn(base, slot), now)) {
          const draft = withValue(base, slot, value);
          if (draft) await exchange(draft);
        }
      }
    }
  });

  it('answers broken requests to every endpoint with a 4xx JSON error and writes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(broken, async ([draft, mutations]) => {
        await exchange(mutations.reduce(applyMutation, draft));
      }),
      { numRuns: 800 },
    );
  });

  /** The request with a JSON body of exactly `size` bytes: one long string, or a long array. */
  function bodyOfSize(draft: Draft, size: number, shape: 'string' | 'array'): Draft {
    const text =
      shape === 'string'
        ? `{"pad":"${'x'.repeat(size - 10)}"}`
        : `[${'1,'.repeat(Math.floor((size - 3) / 2))}1]${size % 2 === 0 ? ' ' : ''}`;
    expect(Buffer.byteLength(text)).to.equal(size);
    return { ...draft, body: { raw: text }, contentType: 'application/json' };
  }

  it('answers a body over the limit with 413, with or without a Content-Length', async () => {
    await fc.assert(
      fc.asyncProperty(
        anyBodyDraft,
        fc.integer({ min: 1, max: 3 * 16 * 1024 }),
        fc.constantFrom('string' as const, 'array' as const),
        fc.boolean(),
        async (draft, over, shape, chunked) => {
          const big = bodyOfSize(draft, draft.op.bodyLimit! + over, shape);
          const answer = await exchange({ ...big, chunked });
          expect(answer.status, `${draft.op.operationId} ${answer.text}`).to.equal(413);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('takes a body of exactly the limit as within it', async () => {
    for (const op of withBodies) {
      const [draft] = fc.sample(draftOf(op, devnetOnly), { numRuns: 1, seed: 3 });
      const answer = await exchange(bodyOfSize(draft!, op.bodyLimit!, 'string'));
      expect(answer.status, `${op.operationId} ${answer.text}`).not.to.equal(413);
    }
  });

  it('answers very long path segments and query strings below the 16 KiB head limit', async () => {
    const long = fc
      .tuple(fc.constantFrom('a', '0', 'f', '%ff', '%27'), fc.integer({ min: 1000, max: 14_000 }))
      .map(([unit, length]) => unit.repeat(Math.ceil(length / unit.length)));
    await fc.assert(
      fc.asyncProperty(anyDraft, long, fc.boolean(), async (draft, value, inQuery) => {
        const names = Object.keys(draft.path);
        await exchange(
          inQuery || names.length === 0
            ? { ...draft, query: [...draft.query, ['q', value]] }
            : { ...draft, path: { ...draft.path, [names[0]!]: value } },
        );
      }),
      { numRuns: 40 },
    );
  });

  it('answers a request head over 16 KiB with a JSON 431 and keeps serving', async () => {
    const response = await fetch(
      `${service.devnet}/api/v1/orders/${'a'.repeat(NODE_MAX_HEADER_BYTES)}`,
    );
    expect(response.status).to.equal(431);
    expect(await response.json()).to.deep.equal({
      errorType: 'RequestHeaderFieldsTooLarge',
      description: 'the request line and headers exceed 16 KiB',
    });
    expect(await watch.appended()).to.deep.equal([]);
  });

  describe('regressions the fuzzing found', () => {
    const account = percentEncode(`0x${'12'.repeat(20)}`);

    it('refuses channel text jsonb cannot store (NUL, lone surrogates) with a 400, not a 500', async () => {
      const channels = [
        { kind: 'webhook', url: 'https://hooks.example.org/a\u0000b' },
        { kind: 'webhook', url: 'https://hooks.example.org/a\ud800b' },
        { kind: 'email', address: 'owner\u0000@example.org' },
        { kind: 'telegram', chatId: '12\udfff' },
      ];
      for (const channel of channels) {
        const answer = await exchange(
          request('subscribe', {
            path: { account },
            headers: { 'X-API-Key': API_KEY },
            body: { json: { channel } },
          }),
        );
        expect(answer.status, answer.text).to.equal(400);
        expect(JSON.parse(answer.text)).to.include({ errorType: 'InvalidParameter' });
      }
    });

    it('refuses a quoteId beyond i64 with a 400, not a 500', async () => {
      const order = templates.createOrder![0]!.body as Record<string, unknown>;
      for (const quoteId of [2 ** 63, 1e19, 1e300, new RawJson('9223372036854775808')]) {
        const answer = await exchange(
          request('createOrder', { body: { json: { ...order, quoteId } } }),
        );
        expect(answer.status, answer.text).to.equal(400);
        expect(answer.text).to.contain('/quoteId');
      }
      // The largest double below 2^63 is an i64: no quote has it, and that is no error.
      const answer = await exchange(
        request('createOrder', { body: { json: { ...order, quoteId: 2 ** 63 - 1024 } } }),
      );
      expect(answer.text).not.to.contain('/quoteId');
    });

    it('answers a chunked body over the limit at once instead of holding the connection', async () => {
      const draft = request('quote', { chunked: true });
      // Beyond what socket buffers absorb, so a paused request would stall the sender.
      const answer = await exchange(bodyOfSize(draft, 256 * 1024, 'array'));
      expect(answer.status).to.equal(413);
    });

    it("answers another method on a token route with a 405 in the route's {message} shape", async () => {
      const answer = await exchange(
        request('usdPrice', { method: 'DELETE', path: { chainId: '1', token: '-' } }),
      );
      expect(answer.status).to.equal(405);
      expect(JSON.parse(answer.text)).to.have.property('message').that.is.a('string');
    });
  });
});
