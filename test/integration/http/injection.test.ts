/**
 * SQL injection through every string parameter: every path, query and header parameter and
 * every string field of every JSON body of every route (test/support/operations.ts: the OpenAPI
 * spec's operations plus batchbook's own, so a parameter added to the spec is covered here
 * without a change) gets each classic payload, alone, appended to a valid value, and inside a
 * JSON document where the field holds one (app data).
 *
 * The requests are built on neutral values (a random owner, an unknown UID), so any seeded
 * identifier in an answer is a leak. Asserted: no 5xx; no leak; no payload that stalls the
 * database (the payloads' 30-second delay, had it run, would miss the answer deadline); what a
 * route accepted is stored verbatim (app data reads back, a webhook lists back); afterwards the
 * seeded orders read the same, every table is still there with its rows, and the ledger only
 * grew by accepted writes.
 */
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'chai';
import { sharedTestChain } from '../../support/chain.js';
import { baseDraft, paramText, toWire, type Draft, type Template } from '../../support/fuzz.js';
import { slotsOf, valueIn, withValue, type Slot } from '../../support/fuzz-slots.js';
import { SQL_PAYLOADS } from '../../support/hostile.js';
import { servedOperations, type Operation } from '../../support/operations.js';
import { fundedWallet } from '../../support/owners.js';
import { kindOf } from '../../support/schema-values.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import {
  CHAIN_ID,
  EMPTY_APP_DATA_HASH,
  newWallet,
  signCancellation,
  signCancellations,
  signOrder,
} from '../../support/signing.js';
import { tableCounts } from '../../support/table-counts.js';
import { waitFor } from '../../support/wait.js';
import { describeWire, send } from '../../support/wire.js';

const API_KEY = 'injection-api-key';
/** Longer than any honest answer takes, far shorter than the payloads' 30-second delay. */
const ANSWER_WITHIN_MS = 20_000;
/**
 * Tables accepted writes add rows to (app data, subscriptions and their ledger; quotes; and the
 * verification requests new subscriptions' destinations are sent).
 */
const GROWS = new Set([
  'public.ledger_events',
  'public.ledger_streams',
  'quote_store.quotes',
  'read.app_data',
  'read.subscriptions',
  'delivery.outbox',
  // Accepted subscriptions send their destination a verification request, spending its budget.
  'delivery.budgets',
]);
/** Streams of the writes a payload may legitimately make. */
const WRITABLE_STREAMS = /^(appdata|subscriptions)-/;

interface Snapshot {
  tables: Record<string, number>;
  ledger: { id: string; stream: string }[];
  /** The seeded data as the API shows it: path → body. */
  views: Record<string, string>;
}

describe('HTTP: SQL injection through every string parameter', function () {
  this.timeout(300_000);
  let service: TestService;
  const operations = servedOperations(API_KEY);
  const templates: Record<string, Template[]> = {};
  /** Identifiers of the seeded data, lowercase without 0x: none may appear in an answer. */
  let secrets: string[] = [];
  let owners: { a: string; b: string };
  let uids: { a: string[]; b: string[] };
  let seededState: Snapshot;

  const viewPaths = () => [
    ...[...uids.a, ...uids.b].map((uid) => `/devnet/api/v1/orders/${uid}`),
    ...[owners.a, owners.b].map((owner) => `/devnet/api/v1/account/${owner}/orders`),
    `/devnet/api/v1/app_data/${EMPTY_APP_DATA_HASH}`,
    `/accounts/${owners.a}/subscriptions`,
  ];

  async function snapshot(): Promise<Snapshot> {
    const views: Record<string, string> = {};
    for (const path of viewPaths()) {
      const response = await http('GET', `${service.url}${path}`, undefined, {
        'x-api-key': API_KEY,
      });
      expect(response.status, `${path} ${response.text}`).to.equal(200);
      views[path] = response.text;
    }
    const ledger = (await service.ledger.readAll(null, 1_000_000)).map(({ id, stream }) => ({
      id,
      stream,
    }));
    return { tables: await tableCounts(service.databaseUrl), ledger, views };
  }

  before(async () => {
    service = await startTestService({
      env: { NOTIFICATIONS_API_KEY: API_KEY, ADMIN_API_KEY: API_KEY },
    });
    // Two owners with orders, and a webhook of the first.
    const [a, b] = [await fundedWallet(), await fundedWallet()];
    const seeded = [
      await signOrder(a, CHAIN_ID.devnet),
      await signOrder(a, CHAIN_ID.devnet, { sellAmount: '2000000000000000000' }),
      await signOrder(b, CHAIN_ID.devnet),
    ];
    for (const order of seeded) {
      const placed = await http('POST', `${service.devnet}/api/v1/orders`, order.body);
      expect(placed.status, placed.text).to.equal(201);
    }
    owners = { a: seeded[0]!.owner, b: seeded[2]!.owner };
    uids = { a: [seeded[0]!.uid, seeded[1]!.uid], b: [seeded[2]!.uid] };
    const webhook = 'https://hooks.example.org/seeded-webhook';
    const subscribed = await http<{ id: string }>(
      'POST',
      `${service.url}/accounts/${owners.a}/subscriptions`,
      { channel: { kind: 'webhook', url: webhook } },
      { 'x-api-key': API_KEY },
    );
    expect(subscribed.status, subscribed.text).to.equal(201);
    secrets = [...uids.a, ...uids.b, owners.a, owners.b, subscribed.body.id, webhook].map((s) =>
      s.replace(/^0x/, '').toLowerCase(),
    );

    // Neutral bodies that pass validation as far as a payload lets them: signed by a stranger,
    // naming no seeded order.
    const stranger = newWallet();
    const unknownUid = `0x${'ab'.repeat(56)}`;
    const { deployment } = await sharedTestChain();
    const key = { 'X-API-Key': API_KEY };
    Object.assign(templates, {
      createOrder: [{ body: (await signOrder(stranger, CHAIN_ID.devnet)).body }],
      cancelOrders: [{ body: await signCancellations(stranger, CHAIN_ID.devnet, [unknownUid]) }],
      cancelOrder: [
        {
          path: { UID: unknownUid },
          body: await signCancellation(stranger, CHAIN_ID.devnet, unknownUid),
        },
      ],
      quote: [
        {
          body: {
            sellToken: deployment.weth.address,
            buyToken: deployment.tokens[0]!.address,
            from: stranger.address,
            kind: 'sell',
            sellAmountBeforeFee: '1000000000000000000',
            appData: '{}',
          },
        },
      ],
      registerAppDataByHash: [
        { path: { app_data_hash: EMPTY_APP_DATA_HASH }, body: { fullAppData: '{}' } },
      ],
      registerAppData: [{ body: { fullAppData: '{}' } }],
      // One per channel kind, so each kind's fields are injected into a body of that kind.
      subscribe: [
        { kind: 'webhook', url: 'https://hooks.example.org/a' },
        { kind: 'email', address: 'someone@example.org' },
        { kind: 'telegram', chatId: '123456789' },
        {
          kind: 'webpush',
          subscription: {
            endpoint: 'https://push.example.org/a',
            keys: { p256dh: 'BA', auth: 'AA' },
          },
        },
      ].map((channel) => ({ headers: key, body: { channel } })),
      listSubscriptions: [{ headers: key }],
      unsubscribe: [{ headers: key }],
    } satisfies Record<string, Template[]>);

    // The projections settle (notices of the seeded orders, token holders), then the snapshot.
    let last: Snapshot | null = null;
    await waitFor(
      async () => {
        const now = await snapshot();
        const settled = last !== null && isDeepStrictEqual(now, last);
        last = now;
        return settled;
      },
      { timeoutMs: 20_000, intervalMs: 250, description: 'the seeded state to settle' },
    );
    seededState = last!;
  });
  after(() => service?.stop());

  /** What the seeded state may have become: only accepted writes added to it. */
  async function expectIntact(): Promise<void> {
    const now = await snapshot();
    expect(now.views, 'the seeded data read differently').to.deep.equal(seededState.views);
    expect(Object.keys(now.tables), 'tables').to.deep.equal(Object.keys(seededState.tables));
    for (const [table, rows] of Object.entries(seededState.tables)) {
      // chain.* follow the chain (the indexers), not requests: they may only grow.
      if (GROWS.has(table) || table.startsWith('chain.')) {
        expect(now.tables[table], table).to.be.at.least(rows);
      } else {
        expect(now.tables[table], table).to.equal(rows);
      }
    }
    const before = seededState.ledger.length;
    expect(now.ledger.slice(0, before), 'ledger events changed').to.deep.equal(seededState.ledger);
    const added = now.ledger.slice(before).filter((e) => !WRITABLE_STREAMS.test(e.stream));
    expect(added, 'events no accepted request explains').to.deep.equal([]);
  }

  /** Seeded identifiers found in an answer. */
  const leaked = (text: string) => secrets.filter((s) => text.toLowerCase().includes(s));

  /** The spec's example is a JSON document: the field holds one, so payloads go inside one too. */
  function holdsDocument(schema: Record<string, unknown>): boolean {
    const parts = [schema, ...((schema.anyOf ?? schema.oneOf ?? schema.allOf ?? []) as object[])];
    return parts.some((part) => {
      const example = (part as { example?: unknown }).example;
      return typeof example === 'string' && example.trimStart().startsWith('{');
    });
  }

  /** How each payload is sent in a slot: alone, after a valid value, inside a document. */
  function forms(slot: Slot, valid: string, payload: string): string[] {
    return [
      payload,
      `${valid}${payload}`,
      ...(holdsDocument(slot.schema) ? [JSON.stringify({ appCode: payload })] : []),
    ];
  }

  const isString = (slot: Slot) => kindOf(slot.schema) === 'string';

  /** Sends one injected request: no 5xx, no seeded identifier in the answer, no long sleep. */
  async function probe(draft: Draft) {
    const wire = toWire(draft);
    const answer = await send(service.url, wire, ANSWER_WITHIN_MS);
    const label = `${describeWire(wire)}\n  → ${answer.status} ${answer.text.slice(0, 300)}`;
    expect(answer.status, label).to.be.below(500);
    expect(leaked(answer.text), `${label}\n  leaks`).to.deep.equal([]);
    return answer;
  }

  /** A 2xx of a route that stores what it was given: read it back unchanged. */
  async function expectStoredVerbatim(op: Operation, draft: Draft, text: string) {
    if (op.operationId === 'registerAppData' || op.operationId === 'registerAppDataByHash') {
      const hash = JSON.parse(text) as string;
      const read = await http<{ fullAppData: string }>(
        'GET',
        `${service.devnet}/api/v1/app_data/${hash}`,
      );
      expect(read.body.fullAppData).to.equal(
        valueIn(draft, { where: 'body', name: '/fullAppData', schema: {} }),
      );
    }
    if (op.operationId === 'subscribe') {
      const { id, channel } = JSON.parse(text) as { id: string; channel: Record<string, unknown> };
      const account = decodeURIComponent(draft.path.account!);
      const headers = { 'x-api-key': API_KEY };
      const listed = await http<{ id: string; channel: Record<string, unknown> }[]>(
        'GET',
        `${service.url}/accounts/${account}/subscriptions`,
        undefined,
        headers,
      );
      const sent = valueIn(draft, { where: 'body', name: '/channel', schema: {} }) as object;
      const stored = listed.body.find((s) => s.id === id);
      expect(stored, `subscription ${id} is not listed`).not.to.equal(undefined);
      for (const [field, value] of Object.entries(sent)) {
        if (typeof value === 'string') expect(stored?.channel[field], field).to.equal(value);
      }
      expect(channel.kind).to.equal(stored?.channel.kind);
      // Room for the next: an account keeps at most 20 channels.
      const removed = await http(
        'DELETE',
        `${service.url}/accounts/${account}/subscriptions/${id}`,
        undefined,
        headers,
      );
      expect(removed.status, removed.text).to.equal(200);
    }
  }

  /** Every payload in every string slot of every operation the filter picks. */
  async function injectInto(pick: (slot: Slot) => boolean): Promise<number> {
    let sent = 0;
    const networkTried = new Set<string>();
    for (const op of operations) {
      const bases = (templates[op.operationId] ?? [undefined]).map((t) =>
        baseDraft(op, 'devnet', t),
      );
      for (const slot of slotsOf(op).filter((s) => isString(s) && pick(s))) {
        // The {network} segment is one middleware for every route: once per method suffices.
        if (slot.where === 'network' && networkTried.has(op.method)) continue;
        if (slot.where === 'network') networkTried.add(op.method);
        const base = bases.find((b) => valueIn(b, slot) !== undefined) ?? bases[0]!;
        const valid = paramText(valueIn(base, slot) ?? '');
        for (const payload of SQL_PAYLOADS) {
          for (const value of forms(slot, valid, payload)) {
            const draft = withValue(base, slot, value);
            if (!draft) continue;
            const answer = await probe(draft);
            sent++;
            if (answer.status < 300) await expectStoredVerbatim(op, draft, answer.text);
          }
        }
      }
    }
    return sent;
  }

  it('takes every payload in every path, query and header parameter harmlessly', async () => {
    const sent = await injectInto((slot) => slot.where !== 'body');
    expect(sent).to.be.greaterThan(0);
    await expectIntact();
  });

  it('takes every payload in every string field of every JSON body harmlessly', async () => {
    const sent = await injectInto((slot) => slot.where === 'body');
    expect(sent).to.be.greaterThan(0);
    await expectIntact();
  });

  it("never shows one owner's orders for an injected owner or UID", async () => {
    const other = (owner: 'a' | 'b') => (owner === 'a' ? 'b' : 'a');
    for (const payload of SQL_PAYLOADS) {
      for (const owner of ['a', 'b'] as const) {
        const hidden = [owners[other(owner)], ...uids[other(owner)]].map((s) => s.slice(2));
        const injectedOwner = encodeURIComponent(`${owners[owner]}${payload}`);
        const injectedUid = encodeURIComponent(`${uids[owner][0]}${payload}`);
        const answers = [
          await http('GET', `${service.devnet}/api/v1/account/${injectedOwner}/orders?limit=1000`),
          await http('GET', `${service.devnet}/api/v2/trades?owner=${injectedOwner}`),
          await http('GET', `${service.devnet}/api/v1/users/${injectedOwner}/total_surplus`),
          await http('GET', `${service.devnet}/api/v1/orders/${injectedUid}`),
          await http('GET', `${service.devnet}/api/v1/orders/${injectedUid}/status`),
          await http('GET', `${service.url}/accounts/${injectedOwner}/notifications`),
          await http('GET', `${service.url}/accounts/${injectedOwner}/subscriptions`, undefined, {
            'x-api-key': API_KEY,
          }),
        ];
        for (const answer of answers) {
          expect(answer.status, answer.text).to.be.below(500);
          expect(hidden.filter((s) => answer.text.toLowerCase().includes(s))).to.deep.equal([]);
        }
        const byUids = await http('POST', `${service.devnet}/api/v1/orders/by_uids`, [
          `${uids[owner][0]}${payload}`,
        ]);
        expect(byUids.status, byUids.text).to.be.below(500);
        if (byUids.status === 200) expect(byUids.body).to.deep.equal([]);
      }
    }
    await expectIntact();
  });
});
