/**
 * An account's subscriptions stream, as the subscription commands decide on it: read and folded
 * (src/subscriptions/account.ts), then written at the revision read, so that concurrent
 * requests of one account are decided one at a time (./decide-again.ts).
 */
import { deterministicEventId } from '../domain/event-ids.js';
import { envelope } from '../domain/event-envelope.js';
import { streams, type Address, type DomainEvent } from '../domain/events.js';
import {
  foldSubscriptions,
  type AccountSubscriptions,
  type SubscriptionEvent,
} from '../subscriptions/account.js';
import { upcast } from '../domain/upcast.js';
import type { ExpectedRevision, Ledger } from '../ledger/port.js';

const isSubscriptionEvent = (event: DomainEvent): event is SubscriptionEvent =>
  event.type === 'SubscriptionAdded' ||
  event.type === 'SubscriptionVerified' ||
  event.type === 'SubscriptionRemoved';

export interface AccountStream {
  account: Address;
  subscriptions: AccountSubscriptions;
  expected: ExpectedRevision;
  /** Position of the stream's last event (null: none): a request that writes nothing waits for it. */
  last: string | null;
}

export async function loadAccount(ledger: Ledger, account: Address): Promise<AccountStream> {
  const recorded = await ledger.readStream(streams.subscriptions(account));
  const events = recorded.map((r) => upcast(r.type, r.version, r.data)).filter(isSubscriptionEvent);
  return {
    account,
    subscriptions: foldSubscriptions(events),
    expected: recorded.length === 0 ? 'noStream' : BigInt(recorded.length - 1),
    last: recorded.at(-1)?.position ?? null,
  };
}

/** Appends one event to the account's stream at the revision read; returns its position. */
export async function appendToAccount(
  ledger: Ledger,
  stream: AccountStream,
  event: SubscriptionEvent,
): Promise<string> {
  const result = await ledger.append(
    streams.subscriptions(stream.account),
    [envelope(event, deterministicEventId(event.type, stream.account, event.data.id))],
    stream.expected,
  );
  return result.position;
}
