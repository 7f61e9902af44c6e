/** An event as the ledger takes it: its id, its type, and its data at its type's current version. */
import { EVENT_VERSIONS, type DomainEvent } from './events.js';

export interface EventEnvelope<E extends DomainEvent = DomainEvent> {
  id: string;
  type: E['type'];
  version: number;
  data: E['data'];
}

/** `event` to append under `id` (a deterministic one: see ./event-ids.ts). */
export function envelope<E extends DomainEvent>(event: E, id: string): EventEnvelope<E> {
  return { id, type: event.type, version: EVENT_VERSIONS[event.type], data: event.data };
}
