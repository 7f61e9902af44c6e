/**
 * Subscription authorisation and decisions: the typed data matches ethers' encoder (and pinned
 * hashes), only the account's own signature over the very action within the issuedAt window
 * authorises, the API key is compared exactly, and channels and decisions follow the rules.
 */
import { createECDH } from 'node:crypto';
import { expect } from 'chai';
import { TypedDataEncoder, Wallet, type TypedDataField } from 'ethers';
import type { Hex, SubscriptionAddedV1 } from '../../../src/domain/events.js';
import { bytesToHex } from '../../../src/domain/hex.js';
import {
  ISSUED_AT_WINDOW_SECONDS,
  SUBSCRIPTIONS_DOMAIN,
  SUBSCRIPTIONS_DOMAIN_SEPARATOR,
  authoriseSubscriptionAction,
  decideSubscribe,
  decideUnsubscribe,
  foldSubscriptions,
  parseChannel,
  subscriptionActionDigest,
  type ChannelRequest,
  type SubscriptionAction,
  type SubscriptionCredentials,
} from '../../../src/domain/subscription-auth.js';
import { sameSecret } from '../../../src/domain/same-secret.js';

const TYPES: Record<string, Record<string, TypedDataField[]>> = {
  subscribe: {
    Subscribe: [
      { name: 'account', type: 'address' },
      { name: 'channel', type: 'string' },
      { name: 'target', type: 'string' },
      { name: 'issuedAt', type: 'uint256' },
    ],
  },
  list: {
    ListSubscriptions: [
      { name: 'account', type: 'address' },
      { name: 'issuedAt', type: 'uint256' },
    ],
  },
  unsubscribe: {
    Unsubscribe: [
      { name: 'account', type: 'address' },
      { name: 'id', type: 'string' },
      { name: 'issuedAt', type: 'uint256' },
    ],
  },
};

const owner = new Wallet('0x4f3edf983ac636a65a842ce7c78d9aa706d3b113bce9c46f30d7d21715b23b1d');
const stranger = new Wallet('0x6cbed15c793ce57650b9877cf6fa156fbef513c4e6134f022a85b1ffdd59b2a1');
const account = owner.address.toLowerCase() as Hex;
const NOW = 1_700_000_000;
const ID = '6f1c2a7e-0d3b-4c55-9a8e-1b2c3d4e5f60';

const actions: SubscriptionAction[] = [
  { kind: 'subscribe', account, channel: 'webhook', target: 'https://example.com/hook' },
  { kind: 'list', account },
  { kind: 'unsubscribe', account, id: ID },
];

/** What a wallet signs for the action: the message fields of its struct. */
function message(action: SubscriptionAction, issuedAt: number): Record<string, unknown> {
  const { kind: _, ...fields } = action;
  return { ...fields, issuedAt };
}

const sign = (wallet: Wallet, action: SubscriptionAction, issuedAt: number): Promise<Hex> =>
  wallet.signTypedData(
    SUBSCRIPTIONS_DOMAIN,
    TYPES[action.kind]!,
    message(action, issuedAt),
  ) as Promise<Hex>;

function authorise(
  action: SubscriptionAction,
  credentials: Partial<SubscriptionCredentials>,
  options: { configuredApiKey?: string | null; nowSeconds?: number } = {},
) {
  return authoriseSubscriptionAction({
    action,
    credentials: { apiKey: null, signature: null, issuedAt: null, ...credentials },
    configuredApiKey: options.configuredApiKey ?? null,
    nowSeconds: options.nowSeconds ?? NOW,
  });
}

describe('subscription authorisation', () => {
  describe('typed data', () => {
    it('has a chain-independent domain separator equal to ethers’', () => {
      expect(bytesToHex(SUBSCRIPTIONS_DOMAIN_SEPARATOR)).to.equal(
        TypedDataEncoder.hashDomain(SUBSCRIPTIONS_DOMAIN),
      );
      expect(bytesToHex(SUBSCRIPTIONS_DOMAIN_SEPARATOR)).to.equal(
        '0x77413e3f3ce75700ff55183c4668978c2853f76d0c1b5d5bc396cc7c80ad96d3',
      );
    });

    it('hashes each action as ethers’ TypedDataEncoder does, and stably', () => {
      const pinned = {
        subscribe: '0xcd120d4bb3c1bd2a8bd00b15f07dcf8ce88afe9bf5db0b6ea6be87cc2142efc7',
        list: '0xe7a08ba55659f6505d0443e3da17c81b61f0ad5f69a221dc14fbc93d7bab42b4',
        unsubscribe: '0x4513abd84308ea32d118a74bbe8135d87690db321ac8b128358deb2438fab93d',
      };
      const fixed = '0x90f8bf6a479f320ead074411a4b0e7944ea8c9c1' as Hex;
      for (const action of actions) {
        const at = { ...action, account: fixed };
        const digest = bytesToHex(subscriptionActionDigest(at, NOW));
        expect(digest, action.kind).to.equal(
          TypedDataEncoder.hash(SUBSCRIPTIONS_DOMAIN, TYPES[action.kind]!, message(at, NOW)),
        );
        expect(digest, action.kind).to.equal(pinned[action.kind]);
      }
    });

    it('binds every field: a different target, channel, id or time is a different digest', () => {
      const base = actions[0] as Extract<SubscriptionAction, { kind: 'subscribe' }>;
      const digest = (a: SubscriptionAction, t = NOW) => bytesToHex(subscriptionActionDigest(a, t));
      const variants = [
        digest({ ...base, target: 'https://example.com/other' }),
        digest({ ...base, channel: 'email' }),
        digest(base, NOW + 1),
        digest({ kind: 'unsubscribe', account, id: `${ID.slice(0, -1)}1` }),
        digest(actions[2]!),
      ];
      expect(new Set([digest(base), ...variants]).size).to.equal(variants.length + 1);
    });
  });

  describe('signatures', () => {
    it('accepts the account’s own signature over each action', async () => {
      for (const action of actions) {
        const signature = await sign(owner, action, NOW);
        expect(authorise(action, { signature, issuedAt: NOW }), action.kind).to.deep.equal({
          ok: true,
          by: 'signature',
        });
      }
    });

    it('refuses a signature by another key, naming the signer', async () => {
      for (const action of actions) {
        const signature = await sign(stranger, action, NOW);
        const decision = authorise(action, { signature, issuedAt: NOW });
        expect(decision.ok, action.kind).to.equal(false);
        expect(decision)
          .to.have.property('description')
          .that.includes(stranger.address.toLowerCase());
      }
    });

    it('refuses a signature over another action or another issuedAt', async () => {
      const add: SubscriptionAction = {
        kind: 'subscribe',
        account,
        channel: 'webhook',
        target: 'https://example.com/hook',
      };
      const [, list, remove] = actions as [unknown, SubscriptionAction, SubscriptionAction];
      const listSignature = await sign(owner, list, NOW);
      expect(authorise(add, { signature: listSignature, issuedAt: NOW }).ok).to.equal(false);
      expect(authorise(remove, { signature: listSignature, issuedAt: NOW }).ok).to.equal(false);
      expect(authorise(list, { signature: listSignature, issuedAt: NOW - 1 }).ok).to.equal(false);
      const otherTarget = await sign(owner, { ...add, target: 'https://evil.example' }, NOW);
      expect(authorise(add, { signature: otherTarget, issuedAt: NOW }).ok).to.equal(false);
    });

    it('accepts issuedAt within ±5 minutes of the clock and refuses it outside', async () => {
      const action = actions[1]!;
      for (const offset of [-ISSUED_AT_WINDOW_SECONDS, 0, ISSUED_AT_WINDOW_SECONDS]) {
        const signature = await sign(owner, action, NOW + offset);
        expect(authorise(action, { signature, issuedAt: NOW + offset }).ok, `${offset}`).to.equal(
          true,
        );
      }
      for (const offset of [-ISSUED_AT_WINDOW_SECONDS - 1, ISSUED_AT_WINDOW_SECONDS + 1, -86400]) {
        const signature = await sign(owner, action, NOW + offset);
        const decision = authorise(action, { signature, issuedAt: NOW + offset });
        expect(decision.ok, `${offset}`).to.equal(false);
        expect(decision).to.have.property('description').that.includes('seconds');
      }
    });

    it('refuses missing credentials, a missing issuedAt and malformed signatures', async () => {
      const action = actions[1]!;
      expect(authorise(action, {}).ok).to.equal(false);
      const signature = await sign(owner, action, NOW);
      expect(authorise(action, { signature }).ok).to.equal(false);
      const badV = `${signature.slice(0, 130)}05` as Hex;
      expect(authorise(action, { signature: badV, issuedAt: NOW }).ok).to.equal(false);
      expect(authorise(action, { signature: '0x1234', issuedAt: NOW }).ok).to.equal(false);
    });
  });

  describe('API key', () => {
    const action = actions[2]!;

    it('authorises with the configured key alone', () => {
      expect(authorise(action, { apiKey: 'k3y' }, { configuredApiKey: 'k3y' })).to.deep.equal({
        ok: true,
        by: 'apiKey',
      });
    });

    it('refuses a wrong key even beside a valid signature, and any key when none is set', async () => {
      const signature = await sign(owner, action, NOW);
      const wrong = authorise(
        action,
        { apiKey: 'k3y!', signature, issuedAt: NOW },
        { configuredApiKey: 'k3y' },
      );
      expect(wrong.ok).to.equal(false);
      expect(authorise(action, { apiKey: '' }, { configuredApiKey: 'k3y' }).ok).to.equal(false);
      expect(authorise(action, { apiKey: 'k3y' }).ok).to.equal(false);
    });

    it('compares secrets exactly', () => {
      expect(sameSecret('abc', 'abc')).to.equal(true);
      for (const other of ['abd', 'ab', 'abcd', 'ABC', '']) {
        expect(sameSecret('abc', other), other).to.equal(false);
      }
    });
  });
});

describe('subscription channels', () => {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const p256dh = ecdh.getPublicKey().toString('base64url');
  const auth = Buffer.alloc(16, 7).toString('base64url');
  const push = (endpoint: string, keys = { p256dh, auth }): ChannelRequest => ({
    kind: 'webpush',
    subscription: { endpoint, keys },
  });
  /** Local development and tests: receivers on this machine. */
  const local = { allowPrivateAddresses: true };
  /** Production: public destinations only. */
  const publicOnly = { allowPrivateAddresses: false };

  it('accepts well-formed channels and names what the account signs', () => {
    const cases: [ChannelRequest, string][] = [
      [{ kind: 'webhook', url: 'https://example.com/hook?x=1' }, 'https://example.com/hook?x=1'],
      [{ kind: 'webhook', url: 'http://10.0.0.1:8080/' }, 'http://10.0.0.1:8080/'],
      [{ kind: 'email', address: 'Alice.B+notices@Example.org' }, 'Alice.B+notices@Example.org'],
      [push('https://fcm.googleapis.com/fcm/send/abc'), 'https://fcm.googleapis.com/fcm/send/abc'],
      [push('http://127.0.0.1:9999/push'), 'http://127.0.0.1:9999/push'],
      [push('http://localhost/push'), 'http://localhost/push'],
      [{ kind: 'telegram', chatId: '123456789' }, '123456789'],
      [{ kind: 'telegram', chatId: '-1001234567890' }, '-1001234567890'],
      [{ kind: 'telegram', chatId: '@batchbook_news' }, '@batchbook_news'],
    ];
    for (const [request, target] of cases) {
      const parsed = parseChannel(request, local);
      expect(parsed, JSON.stringify(request)).to.include({ ok: true, target });
    }
    const pushed = parseChannel(push('https://push.example/1'), publicOnly);
    expect(pushed.ok && pushed.channel).to.deep.equal({
      kind: 'webpush',
      endpoint: 'https://push.example/1',
      keys: { p256dh, auth },
    });
  });

  it('refuses malformed channels', () => {
    const cases: ChannelRequest[] = [
      { kind: 'webhook', url: 'ftp://example.com/hook' },
      { kind: 'webhook', url: 'not a url' },
      { kind: 'webhook', url: `https://example.com/${'x'.repeat(2100)}` },
      { kind: 'email', address: 'no-at-sign' },
      { kind: 'email', address: 'alice@localhost' },
      { kind: 'email', address: 'a b@example.com' },
      push('http://push.example/1'),
      push('https://push.example/1', { p256dh: 'AAAA', auth }),
      push('https://push.example/1', { p256dh, auth: 'AAAA' }),
      push('https://push.example/1', { p256dh: `${p256dh.slice(0, -2)}!!`, auth }),
      { kind: 'telegram', chatId: 'abc' },
      { kind: 'telegram', chatId: '@ab' },
      { kind: 'telegram', chatId: '12 34' },
    ];
    for (const request of cases) {
      expect(parseChannel(request, local).ok, JSON.stringify(request).slice(0, 80)).to.equal(false);
    }
  });

  it('refuses private, loopback and localhost destinations unless private addresses are allowed', () => {
    const privateOnes: ChannelRequest[] = [
      { kind: 'webhook', url: 'http://127.0.0.1:8080/hook' },
      { kind: 'webhook', url: 'http://169.254.169.254/latest/meta-data/' },
      { kind: 'webhook', url: 'https://10.1.2.3/hook' },
      { kind: 'webhook', url: 'http://[::1]/hook' },
      { kind: 'webhook', url: 'http://[::ffff:127.0.0.1]/hook' },
      // The URL parser reads these as 127.0.0.1 too.
      { kind: 'webhook', url: 'http://2130706433/hook' },
      { kind: 'webhook', url: 'http://0x7f.1/hook' },
      { kind: 'webhook', url: 'http://localhost:8080/hook' },
      { kind: 'webhook', url: 'http://hooks.localhost./hook' },
      push('https://192.168.1.1/push'),
      push('https://[fd00::1]/push'),
      push('https://localhost/push'),
    ];
    for (const request of privateOnes) {
      const parsed = parseChannel(request, publicOnly);
      expect(parsed.ok, JSON.stringify(request).slice(0, 80)).to.equal(false);
      expect(!parsed.ok && parsed.description).to.match(/must be a public address/);
      expect(parseChannel(request, local).ok, JSON.stringify(request).slice(0, 80)).to.equal(true);
    }
    // Plain http to a push endpoint on loopback is for local tests only.
    for (const endpoint of ['http://127.0.0.1:9999/push', 'http://localhost/push']) {
      expect(parseChannel(push(endpoint), publicOnly)).to.deep.equal({
        ok: false,
        description: '/channel/subscription/endpoint must be an https URL',
      });
    }
    // Names are not resolved here (delivery checks them); public literals pass.
    for (const request of [
      { kind: 'webhook', url: 'http://hooks.example.com/x' },
      { kind: 'webhook', url: 'https://8.8.8.8/x' },
      { kind: 'webhook', url: 'https://[2606:4700:4700::1111]/x' },
      push('https://fcm.googleapis.com/fcm/send/abc'),
    ] as ChannelRequest[]) {
      expect(parseChannel(request, publicOnly).ok, JSON.stringify(request)).to.equal(true);
    }
  });
});

describe('subscription decisions', () => {
  const added = (id: string, channel: SubscriptionAddedV1['channel']): SubscriptionAddedV1 => ({
    id,
    account,
    channel,
    addedAt: '2024-01-01T00:00:00.000Z',
    authorisedBy: 'signature',
  });
  const hook = added('a', { kind: 'webhook', url: 'https://example.com/hook', secret: 's' });
  const mail = added('b', { kind: 'email', address: 'alice@example.com' });

  it('folds additions and removals into the active subscriptions, oldest first', () => {
    const active = foldSubscriptions([
      { type: 'SubscriptionAdded', data: hook },
      { type: 'SubscriptionAdded', data: mail },
      {
        type: 'SubscriptionRemoved',
        data: { id: 'a', account, removedAt: '2024-01-02T00:00:00.000Z', authorisedBy: 'apiKey' },
      },
    ]);
    expect(active).to.deep.equal([mail]);
  });

  it('adds a new channel, returns an existing one, and refuses past the limit', () => {
    expect(decideSubscribe([hook], { kind: 'webhook', url: 'https://example.com/other' })).to.eql({
      kind: 'add',
    });
    expect(decideSubscribe([hook, mail], { kind: 'email', address: 'ALICE@example.com' })).to.eql({
      kind: 'existing',
      subscription: mail,
    });
    expect(decideSubscribe([hook], { kind: 'webhook', url: 'https://example.com/hook' })).to.eql({
      kind: 'existing',
      subscription: hook,
    });
    // Channels of different kinds never match, whatever their targets.
    expect(
      decideSubscribe([mail], { kind: 'telegram', chatId: 'alice@example.com' }).kind,
    ).to.equal('add');
    const full = Array.from({ length: 20 }, (_, i) =>
      added(`${i}`, { kind: 'telegram', chatId: `${i}` }),
    );
    expect(decideSubscribe(full, { kind: 'telegram', chatId: '99' })).to.include({
      kind: 'refused',
      errorType: 'TooManySubscriptions',
    });
    // Subscribing one it already has is still an answer at the limit.
    expect(decideSubscribe(full, { kind: 'telegram', chatId: '7' }).kind).to.equal('existing');
  });

  it('removes only an active subscription of the account', () => {
    expect(decideUnsubscribe([hook, mail], 'b')).to.deep.equal({ ok: true, subscription: mail });
    expect(decideUnsubscribe([hook, mail], 'c')).to.include({
      ok: false,
      errorType: 'SubscriptionNotFound',
    });
  });
});
