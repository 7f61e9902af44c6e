/**
 * An account's delivery channels (POST, GET and DELETE /accounts/{account}/subscriptions):
 * authorise with the account's signature or the server's API key, decide against the account's
 * own stream in the ledger, append. Nothing is written unless every check passes.
 *
 * The account's stream is the source of truth for the decisions (the limit, a channel already
 * subscribed, the id to remove); appends carry the revision read, so two concurrent requests
 * cannot both take the twentieth place.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { deterministicEventId } from '../domain/event-ids.js';
import {
  EVENT_VERSIONS,
  streams,
  type Address,
  type DeliveryChannel,
  type SubscriptionAddedV1,
  type SubscriptionRemovedV1,
} from '../domain/events.js';
import {
  authoriseSubscriptionAction,
  decideSubscribe,
  decideUnsubscribe,
  foldSubscriptions,
  parseChannel,
  publicChannel,
  type ChannelKind,
  type ChannelRequest,
  type PublicChannel,
  type SubscriptionAction,
  type SubscriptionCredentials,
  type SubscriptionEvent,
} from '../domain/subscription-auth.js';
import { upcast } from '../domain/upcast.js';
import {
  WrongExpectedRevisionError,
  type ExpectedRevision,
  type Ledger,
  type RecordedEvent,
} from '../ledger/port.js';
import { reject } from './rejection.js';

export type { SubscriptionCredentials } from '../domain/subscription-auth.js';

export interface SubscriptionsDeps {
  ledger: Ledger;
  clock: () => Date;
  /** False: every subscription request answers `NotificationsDisabled`. */
  enabled: boolean;
  /** The server's API key; null: the `X-API-Key` header authorises nothing. */
  apiKey: string | null;
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
}

export interface SubscribeResult {
  /** False: the channel was already subscribed, and this is that subscription (no secret). */
  created: boolean;
  subscription: SubscriptionView;
  /** Ledger position of the subscription's `SubscriptionAdded`, for read-your-writes. */
  position: string;
}

export interface UnsubscribeResult {
  id: string;
  account: Address;
  removedAt: string;
  position: string;
}

/**
 * Concurrent writes to the account's stream re-run the decision; each round one of them wins,
 * so this many requests of one account at once all get their answer.
 */
const ATTEMPTS = 8;

const CHANNEL_NAMES: Readonly<Record<Exclude<ChannelKind, 'webhook'>, string>> = {
  email: 'e-mail (set SMTP_URL)',
  webpush: 'web push (set WEB_PUSH_VAPID_PUBLIC_KEY and WEB_PUSH_VAPID_PRIVATE_KEY)',
  telegram: 'Telegram (set TELEGRAM_BOT_TOKEN)',
};

function ensureEnabled(deps: SubscriptionsDeps): void {
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
    nowSeconds: Math.floor(deps.clock().getTime() / 1000),
  });
  if (!decision.ok) reject('Unauthorized', decision.description);
  return decision.by;
}

interface AccountStream {
  active: SubscriptionAddedV1[];
  expected: ExpectedRevision;
  /** Position of each subscription's `SubscriptionAdded`. */
  positions: Map<string, string>;
}

async function loadAccount(ledger: Ledger, account: Address): Promise<AccountStream> {
  const recorded: RecordedEvent[] = await ledger.readStream(streams.subscriptions(account));
  const events: SubscriptionEvent[] = [];
  const positions = new Map<string, string>();
  for (const r of recorded) {
    const event = upcast(r.type, r.version, r.data);
    if (event.type !== 'SubscriptionAdded' && event.type !== 'SubscriptionRemoved') continue;
    events.push(event);
    if (event.type === 'SubscriptionAdded') positions.set(event.data.id, r.position);
  }
  return {
    active: foldSubscriptions(events),
    expected: recorded.length === 0 ? 'noStream' : BigInt(recorded.length - 1),
    positions,
  };
}

async function retried<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || n === ATTEMPTS) throw error;
    }
  }
}

/**
 * Adds a channel. Subscribing a channel the account already has (same kind and target; e-mail
 * addresses in any case) writes nothing and returns the existing subscription without its
 * secret: a webhook secret is shown once, so a lost one means removing and adding again.
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
  const { channel, target } = parsed;
  const authorisedBy = authorise(
    deps,
    { kind: 'subscribe', account, channel: channel.kind, target },
    request.credentials,
  );
  if (channel.kind !== 'webhook' && !deps.channels[channel.kind]) {
    reject(
      'ChannelNotConfigured',
      `this server does not deliver by ${CHANNEL_NAMES[channel.kind]}`,
    );
  }
  // Made once: a retry after a concurrent write keeps the same id, secret and time.
  const id = randomUUID();
  const addedAt = deps.clock().toISOString();
  const delivery: DeliveryChannel =
    channel.kind === 'webhook'
      ? { kind: 'webhook', url: channel.url, secret: randomBytes(32).toString('hex') }
      : channel;

  return retried(async () => {
    const stream = await loadAccount(deps.ledger, account);
    const decision = decideSubscribe(stream.active, channel, deps.maxActive);
    if (decision.kind === 'refused') reject(decision.errorType, decision.description);
    if (decision.kind === 'existing') {
      const { id, channel, addedAt } = decision.subscription;
      return {
        created: false,
        subscription: { id, account, channel: publicChannel(channel), addedAt },
        position: stream.positions.get(id)!,
      };
    }
    const data: SubscriptionAddedV1 = { id, account, channel: delivery, addedAt, authorisedBy };
    const result = await deps.ledger.append(
      streams.subscriptions(account),
      [
        {
          id: deterministicEventId('SubscriptionAdded', account, id),
          type: 'SubscriptionAdded',
          version: EVENT_VERSIONS.SubscriptionAdded,
          data,
        },
      ],
      stream.expected,
    );
    return {
      created: true,
      subscription: { id, account, channel: delivery, addedAt },
      position: result.position,
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
  const authorisedBy = authorise(
    deps,
    { kind: 'unsubscribe', account, id: request.id },
    request.credentials,
  );
  const removedAt = deps.clock().toISOString();
  return retried(async () => {
    const stream = await loadAccount(deps.ledger, account);
    const decision = decideUnsubscribe(stream.active, request.id);
    if (!decision.ok) reject(decision.errorType, decision.description);
    const { id } = decision.subscription;
    const data: SubscriptionRemovedV1 = { id, account, removedAt, authorisedBy };
    const result = await deps.ledger.append(
      streams.subscriptions(account),
      [
        {
          id: deterministicEventId('SubscriptionRemoved', account, id),
          type: 'SubscriptionRemoved',
          version: EVENT_VERSIONS.SubscriptionRemoved,
          data,
        },
      ],
      stream.expected,
    );
    return { id, account, removedAt, position: result.position };
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
