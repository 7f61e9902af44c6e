/**
 * What a request wrote: the ledger's events since the last look (read whole, so an event that
 * became visible late, below the last position seen, shows as a changed prefix too) and the
 * delivery outbox's row count.
 */
import { expect } from 'chai';
import pg from 'pg';
import type { Ledger, RecordedEvent } from '../../src/ledger/port.js';

const ALL = 1_000_000;

export interface LedgerWatch {
  /** Events appended since the last call (or the start); fails if older ones changed. */
  appended(): Promise<RecordedEvent[]>;
  outboxRows(): Promise<number>;
  close(): Promise<void>;
}

export async function watchWrites(ledger: Ledger, databaseUrl: string): Promise<LedgerWatch> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  let seen = await ledger.readAll(null, ALL);
  return {
    async appended() {
      const all = await ledger.readAll(null, ALL);
      const prefix = all.slice(0, seen.length).map((e) => e.id);
      expect(prefix, 'events already in the ledger changed').to.deep.equal(seen.map((e) => e.id));
      const fresh = all.slice(seen.length);
      seen = all;
      return fresh;
    },
    async outboxRows() {
      const { rows } = await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM delivery.outbox',
      );
      return rows[0]!.n;
    },
    close: () => db.end(),
  };
}
