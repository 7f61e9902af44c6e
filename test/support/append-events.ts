/** Appending domain events as their writers would (each to its stream), for read-model tests. */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { EVENT_VERSIONS, streamOf, type DomainEvent } from '../../src/domain/events.js';
import type { Ledger } from '../../src/ledger/port.js';
import { waitFor } from './wait.js';

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

/** Waits until every projector's checkpoint in the `read` schema has passed `last`. */
export async function readModelsCaughtUp(db: Knex, ledger: Ledger, last: string): Promise<void> {
  await waitFor(
    async () => {
      const { rows } = await db.raw<{ rows: { position: string | null }[] }>(
        'SELECT position FROM read.projection_checkpoints',
      );
      return rows.every(
        (r) => r.position !== null && ledger.comparePositions(r.position, last) >= 0,
      );
    },
    { description: 'the read models to catch up' },
  );
}
