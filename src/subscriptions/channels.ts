/**
 * What a subscription's channel must look like: a requested channel checked and put in the form
 * the ledger keeps and the account signs, its identity within the account, and how listings show
 * it.
 */
import type { DeliveryChannel } from '../domain/events.js';
import { nonPublicHost } from '../net/ip-ranges.js';
import type { ChannelKind, SignedChannel } from './typed-data.js';

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
