/**
 * Subscriptions to an account's notices: who may manage them, what a channel must look like,
 * and what adding or removing one decides. Pure: the clock, the configured API key, the
 * deployment's identity and the account's recorded events are parameters.
 *
 * Authorisation is either the server's API key (header `X-API-Key`, compared in constant time;
 * with no key configured the header authorises nothing) or an EIP-712 signature by the account
 * itself over one of the structs below, in the domain `{ name: 'batchbook notifications',
 * version: '2', salt: <the deployment id> }`. The salt is the deployment's identity (one ledger,
 * however many instances serve it; `DeploymentIdentified`), so a signature made for one
 * deployment means nothing to another. The domain has no `chainId` and no `verifyingContract`:
 * an account's subscriptions cover its notices on every network, so one signature must not be
 * bound to one chain, and no contract verifies it. Only ECDSA signatures (65 bytes r‖s‖v, v
 * 27/28 or 0/1) recover; smart-contract (EIP-1271) accounts cannot sign here and manage their
 * subscriptions through the API key.
 *
 * A signature carries `issuedAt` (unix seconds), which must be within ±5 minutes of the server's
 * clock, and a signed request that writes (Subscribe, Unsubscribe) works once: the events it
 * appends record its digest, and a digest already in the account's stream is refused. A signed
 * listing writes nothing and may be repeated within its window.
 */
import { keccak256 } from '../bytes/keccak.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import type {
  Address,
  DeliveryChannel,
  Hex,
  SubscriptionAddedV2,
  SubscriptionAuthority,
  SubscriptionRemovedV2,
  SubscriptionVerifiedV1,
} from './events.js';
import { recoverOrderSigner } from './signatures.js';
import { typedDataDigest } from './eip712.js';
import { bytesToHex } from '../bytes/hex.js';
import { sameSecret } from './same-secret.js';
import { nonPublicHost } from '../net/ip-ranges.js';

// ---------------------------------------------------------------------------------------------
// Typed data

const DOMAIN_NAME = 'batchbook notifications';
const DOMAIN_VERSION = '2';

/** The members of each struct, in order, as `eth_signTypedData_v4` takes them. */
export const SUBSCRIPTION_STRUCTS = {
  EIP712Domain: [
    { name: 'name', type: 'string' },
    { name: 'version', type: 'string' },
    { name: 'salt', type: 'bytes32' },
  ],
  /**
   * `channel` is the kind; `target` the webhook URL, e-mail address, push endpoint or chat id,
   * as sent; `p256dh` and `auth` the push subscription's keys (empty for the other kinds).
   */
  Subscribe: [
    { name: 'account', type: 'address' },
    { name: 'channel', type: 'string' },
    { name: 'target', type: 'string' },
    { name: 'p256dh', type: 'string' },
    { name: 'auth', type: 'string' },
    { name: 'issuedAt', type: 'uint256' },
  ],
  ListSubscriptions: [
    { name: 'account', type: 'address' },
    { name: 'issuedAt', type: 'uint256' },
  ],
  Unsubscribe: [
    { name: 'account', type: 'address' },
    { name: 'id', type: 'string' },
    { name: 'issuedAt', type: 'uint256' },
  ],
} as const;

type StructName = keyof typeof SUBSCRIPTION_STRUCTS;

/** `Subscribe(address account,string channel,…)`: the type string EIP-712 hashes. */
const typeString = (name: StructName) =>
  `${name}(${SUBSCRIPTION_STRUCTS[name].map((m) => `${m.type} ${m.name}`).join(',')})`;

/** The domain a deployment's subscription requests are signed in. */
export function subscriptionsDomain(deploymentId: Hex) {
  return { name: DOMAIN_NAME, version: DOMAIN_VERSION, salt: deploymentId };
}

export interface SubscriptionsTypedData {
  domain: ReturnType<typeof subscriptionsDomain>;
  types: typeof SUBSCRIPTION_STRUCTS;
}

/** What a client needs to sign a request for this deployment (`eth_signTypedData_v4`). */
export function subscriptionsTypedData(deploymentId: Hex): SubscriptionsTypedData {
  return { domain: subscriptionsDomain(deploymentId), types: SUBSCRIPTION_STRUCTS };
}

/** A signed request is accepted this many seconds either side of the server's clock. */
export const ISSUED_AT_WINDOW_SECONDS = 300;

/** Active subscriptions one account may hold. */
export const MAX_ACTIVE_SUBSCRIPTIONS = 20;

const WORD = 32;
const keccakText = (s: string): Uint8Array => keccak256(utf8ToBytes(s));

const SUBSCRIBE_TYPE_HASH = keccakText(typeString('Subscribe'));
const LIST_TYPE_HASH = keccakText(typeString('ListSubscriptions'));
const UNSUBSCRIBE_TYPE_HASH = keccakText(typeString('Unsubscribe'));

/** The domain separator of a deployment's subscription requests. */
export function subscriptionsDomainSeparator(deploymentId: Hex): Uint8Array {
  const buf = Buffer.alloc(4 * WORD);
  buf.set(keccakText(typeString('EIP712Domain')), 0);
  buf.set(keccakText(DOMAIN_NAME), WORD);
  buf.set(keccakText(DOMAIN_VERSION), 2 * WORD);
  if (
    deploymentId.length !== 66 ||
    buf.write(deploymentId.slice(2), 3 * WORD, WORD, 'hex') !== WORD
  ) {
    throw new TypeError(`not a deployment id: ${deploymentId}`);
  }
  return keccak256(buf);
}

export type ChannelKind = DeliveryChannel['kind'];

/** The channel as the account signs it (the `Subscribe` struct's members but account). */
export interface SignedChannel {
  channel: ChannelKind;
  target: string;
  p256dh: string;
  auth: string;
}

/** What the account signs: which action, on which of its subscriptions. */
export type SubscriptionAction =
  | ({ kind: 'subscribe'; account: Address } & SignedChannel)
  | { kind: 'list'; account: Address }
  /** `id` as sent in the path. */
  | { kind: 'unsubscribe'; account: Address; id: string };

function structBuffer(words: number, typeHash: Uint8Array, account: Address): Buffer {
  const buf = Buffer.alloc(words * WORD);
  buf.set(typeHash, 0);
  if (account.length !== 42 || buf.write(account.slice(2), WORD + 12, 20, 'hex') !== 20) {
    throw new TypeError(`not an address: ${account}`);
  }
  return buf;
}

function writeIssuedAt(buf: Buffer, word: number, issuedAt: number): void {
  if (!Number.isSafeInteger(issuedAt) || issuedAt < 0) {
    throw new RangeError(`not a unix time: ${issuedAt}`);
  }
  buf.write(issuedAt.toString(16).padStart(64, '0'), word * WORD, WORD, 'hex');
}

/** keccak256(0x19 ‖ 0x01 ‖ domainSeparator ‖ hashStruct(action with issuedAt)). */
export function subscriptionActionDigest(
  domainSeparator: Uint8Array,
  action: SubscriptionAction,
  issuedAt: number,
): Uint8Array {
  let struct: Buffer;
  switch (action.kind) {
    case 'subscribe':
      struct = structBuffer(7, SUBSCRIBE_TYPE_HASH, action.account);
      struct.set(keccakText(action.channel), 2 * WORD);
      struct.set(keccakText(action.target), 3 * WORD);
      struct.set(keccakText(action.p256dh), 4 * WORD);
      struct.set(keccakText(action.auth), 5 * WORD);
      writeIssuedAt(struct, 6, issuedAt);
      break;
    case 'list':
      struct = structBuffer(3, LIST_TYPE_HASH, action.account);
      writeIssuedAt(struct, 2, issuedAt);
      break;
    case 'unsubscribe':
      struct = structBuffer(4, UNSUBSCRIBE_TYPE_HASH, action.account);
      struct.set(keccakText(action.id), 2 * WORD);
      writeIssuedAt(struct, 3, issuedAt);
      break;
  }
  return typedDataDigest(domainSeparator, keccak256(struct));
}

// ---------------------------------------------------------------------------------------------
// Authorisation

export interface SubscriptionCredentials {
  /** The `X-API-Key` header, when sent. */
  apiKey: string | null;
  signature: Hex | null;
  issuedAt: number | null;
}

export type AuthorisationDecision =
  | {
      ok: true;
      by: SubscriptionAuthority;
      /** The digest the account signed; null with the API key. */
      digest: Hex | null;
    }
  | { ok: false; description: string };

/**
 * An API key, when one is presented, decides alone: a wrong one (or any, when the server has
 * none) is refused even beside a valid signature. Otherwise the signature must recover to the
 * account, over this very action in this deployment's domain, issued within the window around
 * `nowSeconds`. Whether a writing request's digest was used already is the caller's to check
 * (`signatureUsed`), against the account's stream.
 */
export function authoriseSubscriptionAction(input: {
  action: SubscriptionAction;
  credentials: SubscriptionCredentials;
  /** The server's key; null: none configured. */
  configuredApiKey: string | null;
  /** `subscriptionsDomainSeparator` of this deployment. */
  domainSeparator: Uint8Array;
  nowSeconds: number;
}): AuthorisationDecision {
  const { action, credentials, configuredApiKey, nowSeconds } = input;
  if (credentials.apiKey !== null) {
    if (configuredApiKey === null) {
      return refuse('X-API-Key is not accepted: this server has no API key configured');
    }
    if (!sameSecret(configuredApiKey, credentials.apiKey)) {
      return refuse('X-API-Key is not the server’s API key');
    }
    return { ok: true, by: 'apiKey', digest: null };
  }
  const { signature, issuedAt } = credentials;
  if (signature === null) {
    return refuse('sign the request with the account’s key (EIP-712) or send X-API-Key');
  }
  if (issuedAt === null) return refuse('a signed request needs its issuedAt');
  if (Math.abs(nowSeconds - issuedAt) > ISSUED_AT_WINDOW_SECONDS) {
    return refuse(
      `issuedAt ${issuedAt} is more than ${ISSUED_AT_WINDOW_SECONDS} seconds from the server’s ` +
        `time ${nowSeconds}`,
    );
  }
  const digest = subscriptionActionDigest(input.domainSeparator, action, issuedAt);
  const signer = recoverOrderSigner('eip712', digest, signature);
  if (signer === null) return refuse('the signature does not recover to any address');
  if (signer !== action.account.toLowerCase()) {
    return refuse(`the signature is by ${signer}, not by the account ${action.account}`);
  }
  return { ok: true, by: 'signature', digest: bytesToHex(digest) };
}

const refuse = (description: string): AuthorisationDecision => ({ ok: false, description });

// ---------------------------------------------------------------------------------------------
// Channels

/** A channel as a request names it (`webpush` carries the browser's `PushSubscription`). */
export type ChannelRequest =
  | { kind: 'webhook'; url: string }
  | { kind: 'email'; address: string }
  | {
      kind: 'webpush';
      subscription: {
        endpoint: string;
        keys: { p256dh: string; auth: string };
        expirationTime?: number | null;
      };
    }
  | { kind: 'telegram'; chatId: string };

/** A delivery channel before the server gives a webhook its secret. */
export type ChannelSpec =
  { kind: 'webhook'; url: string } | Exclude<DeliveryChannel, { kind: 'webhook' }>;

export type ChannelParse =
  { ok: true; channel: ChannelSpec; signed: SignedChannel } | { ok: false; description: string };

/** What the account signs of a channel that has no keys. */
const signedTarget = (channel: ChannelKind, target: string): SignedChannel => ({
  channel,
  target,
  p256dh: '',
  auth: '',
});

const EMAIL =
  /^[^\s@<>()[\]\\,;:"]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
/** A numeric chat id (groups and channels are negative) or a public channel's `@username`. */
const TELEGRAM_CHAT = /^(-?[0-9]{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})$/;
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const MAX_URL_LENGTH = 2048;

function parseUrl(value: string): URL | null {
  if (value.length > MAX_URL_LENGTH) return null;
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

function base64url(value: string): Buffer | null {
  return BASE64URL.test(value) ? Buffer.from(value, 'base64url') : null;
}

const invalid = (description: string): ChannelParse => ({ ok: false, description });

/**
 * Why notices must not go to `url` (as `field`), or null. Without private addresses, a host
 * known not to be public (an IP literal in a special-purpose range, `localhost`) is refused
 * here, early and plainly; names are not resolved: delivery checks what they resolve to.
 */
function privateDestination(url: URL, field: string, allowPrivate: boolean): string | null {
  const range = allowPrivate ? null : nonPublicHost(url.hostname);
  return (
    range &&
    `${field} must be a public address: ${url.hostname} is ${range} ` +
      '(this server delivers to public addresses only)'
  );
}

export interface ChannelRules {
  /** Webhooks and push endpoints may be private or loopback hosts (local development, tests). */
  allowPrivateAddresses: boolean;
}

/**
 * Checks a requested channel: a webhook is an http(s) URL; an e-mail address has the usual
 * shape; a push endpoint is https (http only on loopback, and only where private addresses are
 * allowed: local tests) with a P-256 public key (65 bytes) and a 16-byte auth secret in
 * base64url; a Telegram chat is a numeric id or an `@channel`. Webhooks and push endpoints must
 * be public hosts unless `rules` allow private ones. `signed` is what the account signs of it.
 */
export function parseChannel(request: ChannelRequest, rules: ChannelRules): ChannelParse {
  const allowPrivate = rules.allowPrivateAddresses;
  switch (request.kind) {
    case 'webhook': {
      const url = parseUrl(request.url);
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
        return invalid('/channel/url must be an http or https URL');
      }
      const refused = privateDestination(url, '/channel/url', allowPrivate);
      if (refused) return invalid(refused);
      return {
        ok: true,
        channel: { kind: 'webhook', url: request.url },
        signed: signedTarget('webhook', request.url),
      };
    }
    case 'email': {
      const { address } = request;
      if (address.length > 254 || !EMAIL.test(address)) {
        return invalid('/channel/address is not an e-mail address');
      }
      return {
        ok: true,
        channel: { kind: 'email', address },
        signed: signedTarget('email', address),
      };
    }
    case 'webpush': {
      const { endpoint, keys } = request.subscription;
      const url = parseUrl(endpoint);
      const secure =
        url !== null &&
        (url.protocol === 'https:' ||
          (allowPrivate && url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)));
      if (!secure) {
        return invalid('/channel/subscription/endpoint must be an https URL');
      }
      const refused = privateDestination(url, '/channel/subscription/endpoint', allowPrivate);
      if (refused) return invalid(refused);
      const publicKey = base64url(keys.p256dh);
      // An uncompressed point: 0x04 ‖ x ‖ y.
      if (publicKey?.length !== 65 || publicKey[0] !== 0x04) {
        return invalid('/channel/subscription/keys/p256dh must be a P-256 public key (base64url)');
      }
      if (base64url(keys.auth)?.length !== 16) {
        return invalid('/channel/subscription/keys/auth must be 16 bytes (base64url)');
      }
      return {
        ok: true,
        channel: { kind: 'webpush', endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth } },
        signed: { channel: 'webpush', target: endpoint, p256dh: keys.p256dh, auth: keys.auth },
      };
    }
    case 'telegram': {
      if (!TELEGRAM_CHAT.test(request.chatId)) {
        return invalid('/channel/chatId must be a numeric chat id or an @channel name');
      }
      return {
        ok: true,
        channel: { kind: 'telegram', chatId: request.chatId },
        signed: signedTarget('telegram', request.chatId),
      };
    }
  }
}

/** Where a channel delivers: the identity of a subscription within its account. */
export function channelTarget(channel: ChannelSpec | DeliveryChannel): string {
  switch (channel.kind) {
    case 'webhook':
      return channel.url;
    // The domain part of an address is case-insensitive, and in practice the local part too.
    case 'email':
      return channel.address.toLowerCase();
    case 'webpush':
      return channel.endpoint;
    case 'telegram':
      return channel.chatId;
  }
}

export function sameChannel(
  a: ChannelSpec | DeliveryChannel,
  b: ChannelSpec | DeliveryChannel,
): boolean {
  return a.kind === b.kind && channelTarget(a) === channelTarget(b);
}

/**
 * A channel as listings show it: without the webhook's HMAC secret (shown once, when it is
 * made) and without the push subscription's encryption keys.
 */
export type PublicChannel =
  | { kind: 'webhook'; url: string }
  | { kind: 'email'; address: string }
  | { kind: 'webpush'; endpoint: string }
  | { kind: 'telegram'; chatId: string };

export function publicChannel(channel: DeliveryChannel): PublicChannel {
  switch (channel.kind) {
    case 'webhook':
      return { kind: 'webhook', url: channel.url };
    case 'email':
      return { kind: 'email', address: channel.address };
    case 'webpush':
      return { kind: 'webpush', endpoint: channel.endpoint };
    case 'telegram':
      return { kind: 'telegram', chatId: channel.chatId };
  }
}

// ---------------------------------------------------------------------------------------------
// Decisions over an account's stream

export type SubscriptionEvent =
  | { type: 'SubscriptionAdded'; data: SubscriptionAddedV2 }
  | { type: 'SubscriptionVerified'; data: SubscriptionVerifiedV1 }
  | { type: 'SubscriptionRemoved'; data: SubscriptionRemovedV2 };

/** An active subscription, and when its destination was verified (null: not yet). */
export interface ActiveSubscription extends SubscriptionAddedV2 {
  verifiedAt: string | null;
}

export interface AccountSubscriptions {
  /** Oldest first. */
  active: ActiveSubscription[];
  /** The digests of the account's signed requests that wrote. */
  usedDigests: ReadonlySet<Hex>;
}

/**
 * A web push subscription needs no more than its own making: the browser made it for this
 * server's VAPID key and keeps its decryption keys.
 */
export const verifiedOnAdding = (added: Pick<SubscriptionAddedV2, 'verification'>): boolean =>
  added.verification.method === 'pushSubscription';

export function foldSubscriptions(events: readonly SubscriptionEvent[]): AccountSubscriptions {
  const active = new Map<string, ActiveSubscription>();
  const usedDigests = new Set<Hex>();
  for (const { type, data } of events) {
    if (type !== 'SubscriptionVerified' && data.signedDigest) usedDigests.add(data.signedDigest);
    if (type === 'SubscriptionAdded') {
      active.set(data.id, { ...data, verifiedAt: verifiedOnAdding(data) ? data.addedAt : null });
    } else if (type === 'SubscriptionRemoved') {
      active.delete(data.id);
    } else {
      const subscription = active.get(data.id);
      if (subscription && subscription.verifiedAt === null) {
        subscription.verifiedAt = data.verifiedAt;
      }
    }
  }
  return { active: [...active.values()], usedDigests };
}

/** A signed request that writes works once: refused when its digest was used already. */
export function signatureUsed(
  subscriptions: AccountSubscriptions,
  digest: Hex | null,
): string | null {
  return digest !== null && subscriptions.usedDigests.has(digest)
    ? 'this signed request was used already: sign a new one'
    : null;
}

export type SubscribeDecision =
  /** The channel is already subscribed: nothing to write. */
  | { kind: 'existing'; subscription: ActiveSubscription }
  | { kind: 'add' }
  | { kind: 'refused'; errorType: 'TooManySubscriptions'; description: string };

export function decideSubscribe(
  active: readonly ActiveSubscription[],
  channel: ChannelSpec,
  max = MAX_ACTIVE_SUBSCRIPTIONS,
): SubscribeDecision {
  const existing = active.find((s) => sameChannel(s.channel, channel));
  if (existing) return { kind: 'existing', subscription: existing };
  if (active.length >= max) {
    return {
      kind: 'refused',
      errorType: 'TooManySubscriptions',
      description: `an account may have at most ${max} subscriptions; remove one first`,
    };
  }
  return { kind: 'add' };
}

export type SubscriptionLookup =
  | { ok: true; subscription: ActiveSubscription }
  | { ok: false; errorType: 'SubscriptionNotFound'; description: string };

/** Only an active subscription of this account is found; ids are matched in any case. */
export function findSubscription(
  active: readonly ActiveSubscription[],
  id: string,
): SubscriptionLookup {
  const subscription = active.find((s) => s.id === id.toLowerCase());
  if (subscription) return { ok: true, subscription };
  return {
    ok: false,
    errorType: 'SubscriptionNotFound',
    description: `the account has no subscription ${id}`,
  };
}
