/**
 * The outbox fan-out of a notices batch: each new notice is queued for the subscriptions of its
 * account that are active and verified at that point of the ledger, and a new subscription's
 * destination gets its verification request. A destination receives nothing but that request
 * until it has answered it (SubscriptionVerified).
 */
import { verificationRequest } from '../../src/subscriptions/destination-verification.js';
import type { DeliveryChannel, DestinationVerification } from '../../src/domain/events.js';
import { verifiedOnAdding } from '../../src/subscriptions/account.js';
import type { Derived } from './derive-notices.js';
import type { OutboxRow } from '../../src/subscriptions/outbox-row.js';
import type { LoadedSubscription, SubscriptionRow } from './rows.js';

/** The subscriptions to read: of the accounts with new notices, and those the events name. */
export function subscriptionsToLoad(
  derived: Derived,
  inserted: ReadonlySet<string>,
): { accounts: string[]; ids: string[] } {
  const accounts = new Set<string>();
  for (const n of derived.notices) if (inserted.has(n.notice.id)) accounts.add(n.notice.account);
  return {
    accounts: [...accounts],
    ids: [...new Set(derived.subscriptionEvents.map((s) => s.event.data.id))],
  };
}

/**
 * Plays the batch's subscription events, in ledger order between its notices, on the stored
 * subscriptions: every inserted notice goes to the account's subscriptions active and verified
 * at that point. A subscription id is added once (a repeated SubscriptionAdded changes nothing),
 * verified once and removed once, each by its own account. A new subscription whose destination
 * must answer a verification (an e-mail code, a webhook challenge) gets that request queued.
 */
export function applySubscriptions(
  loaded: readonly LoadedSubscription[],
  derived: Derived,
  inserted: ReadonlySet<string>,
): {
  added: SubscriptionRow[];
  verified: { id: string; verified_at: string }[];
  removed: { id: string; removed_at: string }[];
  outbox: OutboxRow[];
} {
  interface Sub {
    id: string;
    account: string;
    channel: DeliveryChannel;
    active: boolean;
    /** Null: stored before the batch. */
    added: { at: string; verification: DestinationVerification } | null;
    /** Verified, and when if the batch did it. */
    verified: boolean;
    verifiedAt: string | null;
    /** When the batch removed it. */
    removedAt: string | null;
  }
  const byId = new Map<string, Sub>();
  const byAccount = new Map<string, Sub[]>();
  const remember = (s: Sub) => {
    byId.set(s.id, s);
    byAccount.set(s.account, [...(byAccount.get(s.account) ?? []), s]);
  };
  for (const s of loaded) {
    remember({ ...s, active: !s.removed, added: null, verifiedAt: null, removedAt: null });
  }

  const outbox: OutboxRow[] = [];
  const queue = (s: Sub, key: string, message: Pick<OutboxRow, 'notice' | 'verification'>) =>
    outbox.push({
      notice_id: key,
      subscription_id: s.id,
      account: s.account,
      channel: s.channel,
      ...message,
    });
  const timeline = [
    ...derived.subscriptionEvents.map((s) => ({ seq: s.seq, event: s.event, notice: null })),
    ...derived.notices
      .filter((n) => inserted.has(n.notice.id))
      .map((n) => ({ seq: n.seq, event: null, notice: n.notice })),
  ].sort((a, b) => a.seq - b.seq);

  for (const step of timeline) {
    const notice = step.notice;
    if (notice) {
      for (const s of byAccount.get(notice.account) ?? []) {
        if (s.active && s.verified) queue(s, notice.id, { notice, verification: null });
      }
      continue;
    }
    const e = step.event!;
    if (e.type === 'SubscriptionAdded') {
      const d = e.data;
      if (byId.has(d.id)) continue;
      const verified = verifiedOnAdding(d);
      const s: Sub = {
        id: d.id,
        account: d.account,
        channel: d.channel,
        active: true,
        added: { at: d.addedAt, verification: d.verification },
        verified,
        verifiedAt: verified ? d.addedAt : null,
        removedAt: null,
      };
      remember(s);
      const request = verificationRequest(d);
      if (request) queue(s, request.id, { notice: null, verification: request });
      continue;
    }
    const d = e.data;
    const s = byId.get(d.id);
    if (!s?.active || s.account !== d.account) continue;
    if (e.type === 'SubscriptionVerified') {
      if (s.verified) continue;
      s.verified = true;
      s.verifiedAt = e.data.verifiedAt;
    } else {
      s.active = false;
      s.removedAt = e.data.removedAt;
    }
  }
  const all = [...byId.values()];
  const stored = all.filter((s) => s.added === null);
  return {
    added: all.flatMap(({ added, ...s }) =>
      added === null
        ? []
        : [
            {
              id: s.id,
              account: s.account,
              channel: s.channel,
              verification: added.verification,
              added_at: added.at,
              verified_at: s.verifiedAt,
              removed_at: s.removedAt,
            },
          ],
    ),
    verified: stored.flatMap((s) =>
      s.verifiedAt === null ? [] : [{ id: s.id, verified_at: s.verifiedAt }],
    ),
    // Added ones too: a removal stops the rows queued for them earlier in the batch (their
    // verification request included), as it would had the addition come in a batch before.
    removed: all.flatMap((s) =>
      s.removedAt === null ? [] : [{ id: s.id, removed_at: s.removedAt }],
    ),
    outbox,
  };
}
