/**
 * An account's subscriptions stream, as the subscription commands decide on it: read and folded
 * (src/domain/subscription-auth.ts), then written at the revision read, so that concurrent
 * requests of one account are decided one at a time (a conflict re-runs the decision).
 */
import { deterministicEventId } from '../domain/event-ids.js';
import { EVENT_VERSIONS, streams, type Address, type DomainEvent } from '../domain/events.js';
import {
  foldSubscriptions,
  type AccountSubscriptions,
  type SubscriptionEvent,
} from '../domain/subscription-auth.js';
import { upcast } from '../domain/upcast.js';
import { WrongExpectedRevisionError, type ExpectedRevision, type Ledger } from '../ledger/port.js';

/**
 * Concurrent writes to the account's stream re-run the decision; each round one of them wins,
 * so this many requests of one account at once all get their answer.
 */
const ATTEMPTS = 8;

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
    [
      {
        id: deterministicEventId(event.type, stream.account, event.data.id),
        type: event.type,
        version: EVENT_VERSIONS[event.type],
        data: event.data,
      },
    ],
    stream.expected,
  );
  return result.position;
}

/** Runs `decide` again while a concurrent write to the stream wins the race. */
export async function decidedInTurn<T>(decide: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await decide();
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || n === ATTEMPTS) throw error;
    }
  }
}
