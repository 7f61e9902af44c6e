/**
 * An account's delivery channels (POST, GET and DELETE /accounts/{account}/subscriptions, and
 * their destinations' verification): authorise with the account's signature or the server's API
 * key, decide against the account's own stream in the ledger, append. Nothing is written unless
 * every check passes.
 *
 * The account's stream is the source of truth for the decisions (the limit, a channel already
 * subscribed, the id to remove, a signature used already, a verification code); appends carry
 * the revision read, so two concurrent requests cannot both take the twentieth place, nor one
 * signature be used twice.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  newVerification,
  verificationView,
  type VerificationView,
} from '../subscriptions/destination-verification.js';
import type {
  Address,
  DeliveryChannel,
  Hex,
  SubscriptionAddedV2,
  SubscriptionRemovedV2,
} from '../domain/events.js';
import {
  decideSubscribe,
  findSubscription,
  signatureUsed,
  verifiedOnAdding,
} from '../subscriptions/account.js';
import {
  authoriseSubscriptionAction,
  type SubscriptionCredentials,
} from '../subscriptions/authorisation.js';
import {
  parseChannel,
  publicChannel,
  type ChannelRequest,
  type PublicChannel,
} from '../subscriptions/channels.js';
import {
  subscriptionsTypedData,
  type ChannelKind,
  type SubscriptionAction,
} from '../subscriptions/typed-data.js';
import type { Ledger } from '../ledger/port.js';
import { appendToAccount, loadAccount, type AccountStream } from './account-stream.js';
import { decideAgainOnConflict } from './decide-again.js';
import { reject } from './rejection.js';

export type { SubscriptionCredentials } from '../subscriptions/authorisation.js';

export interface SubscriptionsDeps {
  ledger: Ledger;
  clock: () => Date;
  /** False: every subscription request answers `NotificationsDisabled`. */
  enabled: boolean;
  /** The server's API key; null: the `X-API-Key` header authorises nothing. */
  apiKey: string | null;
  /** This deployment's identity: the salt of the EIP-712 domain requests are signed in. */
  deploymentId: Hex;
  /** `subscriptionsDomainSeparator(deploymentId)`, computed once. */
  domainSeparator: Uint8Array;
  /** The channels this server can deliver to (webhooks always can). */
  channels: { readonly [K in Exclude<ChannelKind, 'webhook'>]: boolean };
  /** Webhooks and push endpoints may be private or loopback hosts (local development, tests). */
  allowPrivateAddresses: boolean;
  /** Active subscriptions per account; default 20. */
  maxActive?: number;
}

/**
 * A subscription as the API shows it: the whole channel (the webhook's secret, the push keys)
 * only in the response that created it, the public part otherwise.
 */
export interface SubscriptionView {
  id: string;
  account: Address;
  channel: DeliveryChannel | PublicChannel;
  addedAt: string;
  verification: VerificationView;
}

export interface SubscribeResult {
  /** False: the channel was already subscribed, and this is that subscription (no secret). */
  created: boolean;
  subscription: SubscriptionView;
  /** Where the ledger stood once the subscription was there, for read-your-writes. */
  position: string;
}

export interface UnsubscribeResult {
  id: string;
  account: Address;
  removedAt: string;
  position: string;
}

const CHANNEL_NAMES: Readonly<Record<Exclude<ChannelKind, 'webhook'>, string>> = {
  email: 'e-mail (set SMTP_URL)',
  webpush: 'web push (set WEB_PUSH_VAPID_PUBLIC_KEY and WEB_PUSH_VAPID_PRIVATE_KEY)',
  telegram: 'Telegram (set TELEGRAM_BOT_TOKEN)',
};

export function ensureEnabled(deps: SubscriptionsDeps): void {
  if (!deps.enabled) {
    reject('NotificationsDisabled', 'notifications are disabled on this server');
  }
}

function authorise(
  deps: SubscriptionsDeps,
  action: SubscriptionAction,
  credentials: SubscriptionCredentials,
) {
  const decision = authoriseSubscriptionAction({
    action,
    credentials,
    configuredApiKey: deps.apiKey,
    domainSeparator: deps.domainSeparator,
    nowSeconds: Math.floor(deps.clock().getTime() / 1000),
  });
  if (!decision.ok) reject('Unauthorized', decision.description);
  return decision;
}

/** Refuses a signed request whose signature this account used already. */
function ensureFresh(stream: AccountStream, digest: Hex | null): void {
  const used = signatureUsed(stream.subscriptions, digest);
  if (used) reject('Unauthorized', used);
}

/** What a client signs requests with for this deployment (`eth_signTypedData_v4`). */
export function typedData(deps: SubscriptionsDeps) {
  ensureEnabled(deps);
  return subscriptionsTypedData(deps.deploymentId);
}

/**
 * Adds a channel, pending its destination's verification (a web push subscription needs none).
 * Subscribing a channel the account already has (same kind and target; e-mail addresses in any
 * case) writes nothing and returns the existing subscription without its secret: a webhook
 * secret is shown once, so a lost one means removing and adding again.
 */
export async function subscribe(
  deps: SubscriptionsDeps,
  account: Address,
  request: { channel: ChannelRequest; credentials: SubscriptionCredentials },
): Promise<SubscribeResult> {
  ensureEnabled(deps);
  const parsed = parseChannel(request.channel, {
    allowPrivateAddresses: deps.allowPrivateAddresses,
  });
  if (!parsed.ok) reject('InvalidParameter', parsed.description);
  const { channel, signed } = parsed;
  const { by: authorisedBy, digest } = authorise(
    deps,
    { kind: 'subscribe', account, ...signed },
    request.credentials,
  );
  if (channel.kind !== 'webhook' && !deps.channels[channel.kind]) {
    reject(
      'ChannelNotConfigured',
      `this server does not deliver by ${CHANNEL_NAMES[channel.kind]}`,
    );
  }
  // Made once: a retry after a concurrent write keeps the same id, secret, code and time.
  const id = randomUUID();
  const addedAt = deps.clock().toISOString();
  const delivery: DeliveryChannel =
    channel.kind === 'webhook'
      ? { kind: 'webhook', url: channel.url, secret: randomBytes(32).toString('hex') }
      : channel;
  const verification = newVerification(channel.kind, randomBytes);

  return decideAgainOnConflict(async () => {
    const stream = await loadAccount(deps.ledger, account);
    ensureFresh(stream, digest);
    const decision = decideSubscribe(stream.subscriptions.active, channel, deps.maxActive);
    if (decision.kind === 'refused') reject(decision.errorType, decision.description);
    if (decision.kind === 'existing') {
      const existing = decision.subscription;
      return {
        created: false,
        subscription: {
          id: existing.id,
          account,
          channel: publicChannel(existing.channel),
          addedAt: existing.addedAt,
          verification: verificationView(existing.verification, existing.verifiedAt),
        },
        position: stream.last!,
      };
    }
    const data: SubscriptionAddedV2 = {
      id,
      account,
      channel: delivery,
      addedAt,
      authorisedBy,
      signedDigest: digest,
      verification,
    };
    const position = await appendToAccount(deps.ledger, stream, {
      type: 'SubscriptionAdded',
      data,
    });
    const verifiedAt = verifiedOnAdding(data) ? addedAt : null;
    return {
      created: true,
      subscription: {
        id,
        account,
        channel: delivery,
        addedAt,
        verification: verificationView(verification, verifiedAt),
      },
      position,
    };
  });
}

/** Removes one of the account's active subscriptions; any other id is `SubscriptionNotFound`. */
export async function unsubscribe(
  deps: SubscriptionsDeps,
  account: Address,
  request: { id: string; credentials: SubscriptionCredentials },
): Promise<UnsubscribeResult> {
  ensureEnabled(deps);
  const { by: authorisedBy, digest } = authorise(
    deps,
    { kind: 'unsubscribe', account, id: request.id },
    request.credentials,
  );
  const removedAt = deps.clock().toISOString();
  return decideAgainOnConflict(async () => {
    const stream = await loadAccount(deps.ledger, account);
    ensureFresh(stream, digest);
    const found = findSubscription(stream.subscriptions.active, request.id);
    if (!found.ok) reject(found.errorType, found.description);
    const { id } = found.subscription;
    const data: SubscriptionRemovedV2 = {
      id,
      account,
      removedAt,
      authorisedBy,
      signedDigest: digest,
    };
    const position = await appendToAccount(deps.ledger, stream, {
      type: 'SubscriptionRemoved',
      data,
    });
    return { id, account, removedAt, position };
  });
}

/** GET /accounts/{account}/subscriptions reads the read model; this decides whether it may. */
export function authoriseListing(
  deps: SubscriptionsDeps,
  account: Address,
  credentials: SubscriptionCredentials,
): void {
  ensureEnabled(deps);
  authorise(deps, { kind: 'list', account }, credentials);
}
