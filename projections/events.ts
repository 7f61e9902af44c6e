/**
 * Recorded events as projectors read them: only the types a projector handles, upcast to the
 * current schema version. Other types are skipped before upcasting, so a projector never
 * trips over an event type that was added after it.
 */
import type { DomainEvent, EventType } from '../src/domain/events.js';
import { upcast } from '../src/domain/upcast.js';
import type { RecordedEvent } from '../src/ledger/port.js';

export type EventOf<T extends EventType> = Extract<DomainEvent, { type: T }>;

export function eventsOfTypes<T extends EventType>(
  events: readonly RecordedEvent[],
  types: ReadonlySet<T>,
): EventOf<T>[] {
  const wanted: ReadonlySet<string> = types;
  const out: EventOf<T>[] = [];
  for (const e of events) {
    if (wanted.has(e.type)) out.push(upcast(e.type, e.version, e.data) as EventOf<T>);
  }
  return out;
}
