/**
 * The PostgreSQL ledger's usage by event type: events and the bytes their payloads take as
 * stored, counted on from the last call, a page at a time.
 */
import { expect } from 'chai';
import pg from 'pg';
import { createPostgresLedger } from '../../../src/ledger/postgres.js';
import { createLedgerUsage, type EventTypeUsage } from '../../../src/ledger/postgres-usage.js';
import { migratedDatabase } from '../../support/postgres.js';
import { event } from './contract.js';

describe('PostgreSQL ledger usage', () => {
  it('counts events and payload bytes by type, on from the last call, a page at a time', async () => {
    const pool = new pg.Pool({ connectionString: await migratedDatabase(), max: 4 });
    const ledger = createPostgresLedger({ pool });
    /** What the table holds, counted at once. */
    const held = async () => {
      const { rows } = await pool.query<{ type: string; events: number; bytes: number }>(
        `SELECT type, count(*)::int AS events,
           sum(pg_column_size(data) + pg_column_size(metadata))::int AS bytes
         FROM ledger_events GROUP BY type ORDER BY type`,
      );
      return Object.fromEntries(rows.map(({ type, ...usage }) => [type, usage]));
    };
    const counted = (usage: ReadonlyMap<string, EventTypeUsage>) =>
      Object.fromEntries([...usage].sort(([a], [b]) => a.localeCompare(b)));
    try {
      const usage = createLedgerUsage(pool, 3);
      expect(counted(await usage.byType())).to.deep.equal({});
      // A large payload too: PostgreSQL compresses it, and its stored size is what counts.
      await ledger.append(
        'usage-1',
        [event('Alpha'), event('Beta', { text: 'x'.repeat(9000) })],
        'noStream',
      );
      for (let n = 2; n <= 6; n++)
        await ledger.append(`usage-${n}`, [event('Alpha', { n })], 'noStream');

      const first = counted(await usage.byType());
      expect(Object.values(first).reduce((sum, { events }) => sum + events, 0)).to.equal(3);
      await usage.byType();
      expect(counted(await usage.byType())).to.deep.equal(await held());
      expect((await held()).Beta!.bytes).to.be.within(1, 9000);

      await ledger.append('usage-7', [event('Gamma')], 'noStream');
      expect(counted(await usage.byType())).to.deep.equal(await held());
    } finally {
      await ledger.close();
      await pool.end();
    }
  });
});
