/**
 * An account's subscriptions, folded from its stream, and what adding or removing one decides.
 * Pure: the account's recorded events are a parameter.
 */
import type {
  Hex,
  SubscriptionAddedV2,
  SubscriptionRemovedV2,
  SubscriptionVerifiedV1,
} from '../domain/events.js';
import { sameChannel, type ChannelSpec } from './channels.js';

/** Active subscriptions one account may hold. */
export const MAX_ACTIVE_SUBSCRIPTIONS = 20;

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
