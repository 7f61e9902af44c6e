/**
 * Subscription authorisation and decisions: the typed data matches ethers' encoder (and pinned
 * hashes), only the account's own signature over the very action (the whole channel, push keys
 * included) in this deployment's domain within the issuedAt window authorises, a signature
 * writes once, the API key is compared exactly, and channels and decisions follow the rules.
 */
import { createECDH } from 'node:crypto';
import { expect } from 'chai';
import { TypedDataEncoder, Wallet } from 'ethers';
import type { Hex, SubscriptionAddedV2 } from '../../../src/domain/events.js';
import { bytesToHex } from '../../../src/bytes/hex.js';
import {
  decideSubscribe,
  findSubscription,
  foldSubscriptions,
  signatureUsed,
  type ActiveSubscription,
} from '../../../src/subscriptions/account.js';
import {
  ISSUED_AT_WINDOW_SECONDS,
  authoriseSubscriptionAction,
  type SubscriptionCredentials,
} from '../../../src/subscriptions/authorisation.js';
import { parseChannel, type ChannelRequest } from '../../../src/subscriptions/channels.js';
import {
  SUBSCRIPTION_STRUCTS,
  subscriptionActionDigest,
  subscriptionsDomain,
  subscriptionsDomainSeparator,
  type SubscriptionAction,
} from '../../../src/subscriptions/typed-data.js';
import { SUBSCRIPTION_TYPES } from '../../support/subscription-types.js';

const owner = new Wallet('0x4f3edf983ac636a65a842ce7c78d9aa706d3b113bce9c46f30d7d21715b23b1d');
const stranger = new Wallet('0x6cbed15c793ce57650b9877cf6fa156fbef513c4e6134f022a85b1ffdd59b2a1');
const account = owner.address.toLowerCase() as Hex;
const NOW = 1_700_000_000;
const ID = '6f1c2a7e-0d3b-4c55-9a8e-1b2c3d4e5f60';
/** This deployment's identity, and another's. */
const DEPLOYMENT = `0x${'5a'.repeat(32)}` as Hex;
const ELSEWHERE = `0x${'a5'.repeat(32)}` as Hex;
const DOMAIN = subscriptionsDomain(DEPLOYMENT);
const SEPARATOR = subscriptionsDomainSeparator(DEPLOYMENT);

const subscribeTo = (target: string): SubscriptionAction => ({
  kind: 'subscribe',
  account,
  channel: 'webhook',
  target,
  p256dh: '',
  auth: '',
});

const pushAction: SubscriptionAction = {
  kind: 'subscribe',
  account,
  channel: 'webpush',
  target: 'https://push.example/send/1',
  p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM',
  auth: 'tBHItJI5svbpez7KI4CCXg',
};

/** The digests of these tests' actions, as ethers computed them when they were written. */
const PINNED = {
  domain: '0xd9f0ce752088501c5ad392fe6ddcc4d7a6cd81bd3feb4f8ef0b47bcd1b3b6a35',
  subscribe: '0x92f3b909fb79f795c684a44f07a819900aaa70068cf16d5c6f5d846244032ad3',
  list: '0xb5e1a078827e0e5a366358153e2ee28b8a36da9caa5f5618a559ab2e82d0ad65',
  unsubscribe: '0x139c9d26c26e484e6aabe5afef50db179b272bf0417f5ebe2055d94c1a36a9a6',
  push: '0xa89cbb4036fa7d27c2c836f6d20283d7059441790ad2a1251e2af95cab08b1b9',
};

const actions: SubscriptionAction[] = [
  subscribeTo('https://example.com/hook'),
  { kind: 'list', account },
  { kind: 'unsubscribe', account, id: ID },
];

/** What a wallet signs for the action: the message fields of its struct. */
function message(action: SubscriptionAction, issuedAt: number): Record<string, unknown> {
  const { kind: _, ...fields } = action;
  return { ...fields, issuedAt };
}

const sign = (
  wallet: Wallet,
  action: SubscriptionAction,
  issuedAt: number,
  domain = DOMAIN,
): Promise<Hex> =>
  wallet.signTypedData(
    domain,
    SUBSCRIPTION_TYPES[action.kind]!,
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
    domainSeparator: SEPARATOR,
    nowSeconds: options.nowSeconds ?? NOW,
  });
}

describe('subscription authorisation', () => {
  describe('typed data', () => {
    it('has a chain-independent domain separator per deployment, equal to ethers’', () => {
      expect(DOMAIN).to.deep.equal({
        name: 'batchbook notifications',
        version: '2',
        salt: DEPLOYMENT,
      });
      expect(bytesToHex(SEPARATOR)).to.equal(TypedDataEncoder.hashDomain(DOMAIN));
      expect(bytesToHex(SEPARATOR)).to.equal(PINNED.domain);
      expect(bytesToHex(subscriptionsDomainSeparator(ELSEWHERE))).not.to.equal(PINNED.domain);
    });

    it('publishes the structs a wallet signs, as these tests spell them', () => {
      for (const types of Object.values(SUBSCRIPTION_TYPES)) {
        for (const [name, members] of Object.entries(types)) {
          expect(SUBSCRIPTION_STRUCTS[name as keyof typeof SUBSCRIPTION_STRUCTS]).to.deep.equal(
            members,
          );
        }
      }
      expect(SUBSCRIPTION_STRUCTS.EIP712Domain).to.deep.equal([
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'salt', type: 'bytes32' },
      ]);
    });

    it('hashes each action as ethers’ TypedDataEncoder does, and stably', () => {
      const fixed = '0x90f8bf6a479f320ead074411a4b0e7944ea8c9c1' as Hex;
      for (const action of [...actions, pushAction]) {
        const at = { ...action, account: fixed };
        const digest = bytesToHex(subscriptionActionDigest(SEPARATOR, at, NOW));
        expect(digest, action.kind).to.equal(
          TypedDataEncoder.hash(DOMAIN, SUBSCRIPTION_TYPES[action.kind]!, message(at, NOW)),
        );
        const pinned = action === pushAction ? PINNED.push : PINNED[action.kind];
        expect(digest, action.kind).to.equal(pinned);
      }
    });

    it('binds every field: another target, channel, key, id, time or deployment is another digest', () => {
      const base = actions[0] as Extract<SubscriptionAction, { kind: 'subscribe' }>;
      const digest = (a: SubscriptionAction, t = NOW, separator = SEPARATOR) =>
        bytesToHex(subscriptionActionDigest(separator, a, t));
      const variants = [
        digest({ ...base, target: 'https://example.com/other' }),
        digest({ ...base, channel: 'email' }),
        digest(pushAction),
        digest({ ...pushAction, p256dh: 'BOther' }),
        digest({ ...pushAction, auth: 'other' }),
        digest(base, NOW, subscriptionsDomainSeparator(ELSEWHERE)),
        digest(base, NOW + 1),
        digest({ kind: 'unsubscribe', account, id: `${ID.slice(0, -1)}1` }),
        digest(actions[2]!),
      ];
      expect(new Set([digest(base), ...variants]).size).to.equal(variants.length + 1);
    });
  });

  describe('signatures', () => {
    it('accepts the account’s own signature over each action, and names its digest', async () => {
      for (const action of actions) {
        const signature = await sign(owner, action, NOW);
        expect(authorise(action, { signature, issuedAt: NOW }), action.kind).to.deep.equal({
          ok: true,
          by: 'signature',
          digest: bytesToHex(subscriptionActionDigest(SEPARATOR, action, NOW)),
        });
      }
    });

    it('refuses a signature made for another deployment', async () => {
      for (const action of actions) {
        const signature = await sign(owner, action, NOW, subscriptionsDomain(ELSEWHERE));
        expect(authorise(action, { signature, issuedAt: NOW }).ok, action.kind).to.equal(false);
      }
    });

    it('refuses a push subscription signed with other keys', async () => {
      const signature = await sign(owner, { ...pushAction, auth: 'c3RvbGVu' }, NOW);
      expect(authorise(pushAction, { signature, issuedAt: NOW }).ok).to.equal(false);
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
      const add = subscribeTo('https://example.com/hook');
      const [, list, remove] = actions as [unknown, SubscriptionAction, SubscriptionAction];
      const listSignature = await sign(owner, list, NOW);
      expect(authorise(add, { signature: listSignature, issuedAt: NOW }).ok).to.equal(false);
      expect(authorise(remove, { signature: listSignature, issuedAt: NOW }).ok).to.equal(false);
      expect(authorise(list, { signature: listSignature, issuedAt: NOW - 1 }).ok).to.equal(false);
      const otherTarget = await sign(owner, subscribeTo('https://evil.example'), NOW);
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
        digest: null,
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
      expect(parsed.ok && parsed.signed, JSON.stringify(request)).to.deep.equal({
        channel: request.kind,
        target,
        p256dh: request.kind === 'webpush' ? p256dh : '',
        auth: request.kind === 'webpush' ? auth : '',
      });
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
  const added = (
    id: string,
    channel: SubscriptionAddedV2['channel'],
    signedDigest: Hex | null = null,
  ): SubscriptionAddedV2 => ({
    id,
    account,
    channel,
    addedAt: '2024-01-01T00:00:00.000Z',
    authorisedBy: signedDigest ? 'signature' : 'apiKey',
    signedDigest,
    verification: { method: 'telegramCode', code: '0123456789ABCDEF' },
  });
  const pending = (s: SubscriptionAddedV2): ActiveSubscription => ({ ...s, verifiedAt: null });
  const digests = [1, 2, 3].map((n) => `0x${String(n).repeat(64)}` as Hex);
  const hook = added('a', { kind: 'webhook', url: 'https://example.com/hook', secret: 's' });
  const mail = added('b', { kind: 'email', address: 'alice@example.com' }, digests[0]!);
  const chat = added('c', { kind: 'telegram', chatId: '42' });

  it('folds additions, verifications and removals into the active subscriptions, oldest first', () => {
    const folded = foldSubscriptions([
      { type: 'SubscriptionAdded', data: hook },
      { type: 'SubscriptionAdded', data: mail },
      { type: 'SubscriptionAdded', data: chat },
      {
        type: 'SubscriptionVerified',
        data: { id: 'c', account, method: 'telegramCode', verifiedAt: '2024-01-02T00:00:00.000Z' },
      },
      {
        type: 'SubscriptionRemoved',
        data: {
          id: 'a',
          account,
          removedAt: '2024-01-02T00:00:00.000Z',
          authorisedBy: 'signature',
          signedDigest: digests[1]!,
        },
      },
    ]);
    expect(folded.active).to.deep.equal([
      pending(mail),
      { ...chat, verifiedAt: '2024-01-02T00:00:00.000Z' },
    ]);
    // Every signed request that wrote, whatever became of what it wrote.
    expect([...folded.usedDigests]).to.deep.equal([digests[0], digests[1]]);
    expect(signatureUsed(folded, digests[1]!)).to.match(/used already/);
    expect(signatureUsed(folded, digests[2]!)).to.equal(null);
    expect(signatureUsed(folded, null)).to.equal(null);
  });

  it('counts a web push subscription verified as it is added', () => {
    const browser = {
      ...added('d', {
        kind: 'webpush',
        endpoint: 'https://push.example/1',
        keys: { p256dh: 'k', auth: 'a' },
      }),
      verification: { method: 'pushSubscription' as const },
    };
    expect(foldSubscriptions([{ type: 'SubscriptionAdded', data: browser }]).active).to.deep.equal([
      { ...browser, verifiedAt: browser.addedAt },
    ]);
  });

  it('adds a new channel, returns an existing one, and refuses past the limit', () => {
    const [h, m] = [pending(hook), pending(mail)];
    expect(decideSubscribe([h], { kind: 'webhook', url: 'https://example.com/other' })).to.eql({
      kind: 'add',
    });
    expect(decideSubscribe([h, m], { kind: 'email', address: 'ALICE@example.com' })).to.eql({
      kind: 'existing',
      subscription: m,
    });
    expect(decideSubscribe([h], { kind: 'webhook', url: 'https://example.com/hook' })).to.eql({
      kind: 'existing',
      subscription: h,
    });
    // Channels of different kinds never match, whatever their targets.
    expect(decideSubscribe([m], { kind: 'telegram', chatId: 'alice@example.com' }).kind).to.equal(
      'add',
    );
    const full = Array.from({ length: 20 }, (_, i) =>
      pending(added(`${i}`, { kind: 'telegram', chatId: `${i}` })),
    );
    expect(decideSubscribe(full, { kind: 'telegram', chatId: '99' })).to.include({
      kind: 'refused',
      errorType: 'TooManySubscriptions',
    });
    // Subscribing one it already has is still an answer at the limit.
    expect(decideSubscribe(full, { kind: 'telegram', chatId: '7' }).kind).to.equal('existing');
  });

  it('finds only an active subscription of the account', () => {
    const [h, m] = [pending(hook), pending(mail)];
    expect(findSubscription([h, m], 'b')).to.deep.equal({ ok: true, subscription: m });
    expect(findSubscription([h, m], 'c')).to.include({
      ok: false,
      errorType: 'SubscriptionNotFound',
    });
  });
});
