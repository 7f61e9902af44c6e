/** Appending domain events as their writers would (each to its stream), for read-model tests. */
import { randomUUID } from 'node:crypto';
import { EVENT_VERSIONS, streamOf, type DomainEvent } from '../../src/domain/events.js';
import type { Ledger } from '../../src/ledger/port.js';

/** Appends each event to its own stream, in order; answers the position of the last. */
export async function appendEach(ledger: Ledger, events: readonly DomainEvent[]): Promise<string> {
  let last = '';
  for (const event of events) {
    const { position } = await ledger.append(
      streamOf(event),
      [
        {
          id: randomUUID(),
          type: event.type,
          version: EVENT_VERSIONS[event.type],
          data: event.data,
        },
      ],
      'any',
    );
    last = position;
  }
  return last;
}
