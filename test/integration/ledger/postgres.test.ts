import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { createPostgresLedger, type PostgresLedger } from '../../../src/ledger/postgres.js';
import { WrongExpectedRevisionError, type NewEvent } from '../../../src/ledger/port.js';
import { migratedDatabase } from '../../support/postgres.js';
import { waitFor } from '../../support/wait.js';
import { collect, event, ledgerContract, readAllAfter } from './contract.js';

function newPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 12 });
  // Idle connections killed by a test must not crash the run; the ledger reports what it sees.
  pool.on('error', () => undefined);
  return pool;
}

ledgerContract('PostgreSQL', async () => {
  const pool = newPool(await migratedDatabase());
  const ledger = createPostgresLedger({ pool });
  return {
    ledger,
    close: async () => {
      await ledger.close();
      await pool.end();
    },
  };
});

describe('PostgreSQL ledger', () => {
  let url: string;
  let pool: pg.Pool;
  let ledger: PostgresLedger;
  const errors: unknown[] = [];
  const name = (label: string) => `${label}-${randomUUID()}`;

  before(async () => {
    url = await migratedDatabase();
    pool = newPool(url);
    ledger = createPostgresLedger({ pool, onError: (error) => errors.push(error) });
  });

  after(async () => {
    await ledger?.close();
    await pool?.end();
  });

  /** A subscription from `on`'s end to the streams under a new prefix, and what it receives. */
  const followNewStreams = async (on: PostgresLedger, label: string) => {
    const start = (await on.append(name('mark'), [event()], 'noStream')).position;
    const prefix = name(label);
    const subscription = on.subscribe(start, { streamPrefixes: [prefix] });
    return { start, prefix, subscription, received: collect(subscription) };
  };
  /** A session of the test's own, to hold a transaction open. */
  const session = async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return client;
  };

  it('does not skip a transaction that took its position early and committed late', async () => {
    const { start, prefix, subscription, received } = await followNewStreams(ledger, 'late');
    const held = await session();
    try {
      // A writer the way the adapter writes: position taken now, commit delayed.
      const heldId = randomUUID();
      await held.query('BEGIN');
      await held.query(`INSERT INTO ledger_streams (stream_id, revision) VALUES ($1, 0)`, [
        `${prefix}-held`,
      ]);
      const heldRow = await held.query<{ global_position: string }>(
        `INSERT INTO ledger_events (stream_id, revision, event_id, type, version, data)
         VALUES ($1, 0, $2, 'Held', 1, '{}') RETURNING global_position::text`,
        [`${prefix}-held`, heldId],
      );
      const later = event();
      const appended = await ledger.append(`${prefix}-later`, [later], 'noStream');

      // The later event is committed with a higher sequence position than the held one: a reader
      // resuming by sequence position alone would pass it now and never see the held event.
      const [, laterPosition] = appended.position.split(':');
      expect(BigInt(laterPosition!) > BigInt(heldRow.rows[0]!.global_position)).to.equal(true);
      expect(await ledger.readStream(`${prefix}-later`)).to.have.length(1);
      // Readers of the all-stream hold it back until every older transaction has ended.
      expect(await readAllAfter(ledger, start, prefix)).to.deep.equal([]);
      expect(received.events).to.deep.equal([]);

      await held.query('COMMIT');
      await waitFor(() => received.events.length === 2, { description: 'both events' });
      expect(received.events.map((e) => e.id)).to.deep.equal([heldId, later.id]);
      const read = await readAllAfter(ledger, start, prefix);
      expect(read.map((e) => e.id)).to.deep.equal([heldId, later.id]);
    } finally {
      await held.end();
      await subscription.close();
      await received.done;
    }
  });

  it('delivers an append held back by an older transaction once it ends, not at the next poll', async () => {
    // Its own pool, named, so its connections can be watched; a poll far beyond the test's
    // deadline, so only the announced append can bring the event.
    const application = name('patient');
    const patientPool = new pg.Pool({ connectionString: url, application_name: application });
    const patient = createPostgresLedger({ pool: patientPool, pollIntervalMs: 600_000 });
    const activity = async (condition: string, values: unknown[] = []) =>
      (
        await pool.query(
          `SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND ${condition}`,
          [application, ...values],
        )
      ).rowCount! > 0;
    const { prefix, subscription, received } = await followNewStreams(patient, 'behind');
    const older = await session();
    try {
      await waitFor(() => activity(`query LIKE 'LISTEN %'`), { description: 'the LISTEN' });
      // Any writing transaction holds the horizon back (a projection's, a quote's): this one
      // writes nothing to the ledger, so its end is announced to no one.
      await older.query('BEGIN');
      await older.query('SELECT pg_current_xact_id()');
      const held = event();
      await patient.append(`${prefix}-held`, [held], 'noStream');
      const { rows } = await older.query<{ at: Date }>('SELECT clock_timestamp() AS at');
      // The subscription has been woken by the append and read nothing it could deliver.
      await waitFor(
        () =>
          activity(`query LIKE '%pg_snapshot_xmin%' AND query_start > $2 AND state = 'idle'`, [
            rows[0]!.at,
          ]),
        { description: 'a page read after the append' },
      );
      expect(received.events).to.deep.equal([]);

      await older.query('COMMIT');
      await waitFor(() => received.events.length === 1, { description: 'the held-back event' });
      expect(received.events.map((e) => e.id)).to.deep.equal([held.id]);
    } finally {
      await older.end();
      await subscription.close();
      await received.done;
      await patient.close();
      await patientPool.end();
    }
  });

  it('keeps subscriptions going, exactly once, through dropped connections', async function () {
    this.timeout(20_000);
    const prefix = name('drop');
    const subscription = ledger.subscribe(null, { streamPrefixes: [prefix] });
    const received = collect(subscription);
    /** Retried appends are safe: the same event ids are written once. */
    const appendRetrying = async (stream: string, events: NewEvent[]) => {
      await waitFor(
        () =>
          ledger.append(stream, events, 'any').then(
            () => true,
            () => false,
          ),
        { timeoutMs: 10_000, intervalMs: 50, description: 'an append to succeed' },
      );
    };
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    /** Backends already terminated: one may still be listed for a moment after it was told to end. */
    const killed = new Set<number>();
    // The subscription also polls, so it can be caught up while its LISTEN connection is still
    // reconnecting; a drop must hit that connection for the ledger to have something to notice.
    const listening = async () =>
      (
        await admin.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity
           WHERE datname = current_database() AND query LIKE 'LISTEN %'`,
        )
      ).rows.some((row) => !killed.has(row.pid));
    try {
      const sent: NewEvent[] = [];
      for (let round = 0; round < 3; round++) {
        const events = [event(), event()];
        await appendRetrying(`${prefix}-${round}`, events);
        sent.push(...events);
        await waitFor(() => received.events.length === sent.length, {
          description: `round ${round}`,
        });
        await waitFor(listening, { description: 'the LISTEN connection up' });
        const errorsBefore = errors.length;
        const { rows } = await admin.query<{ pid: number }>(
          `SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid()`,
        );
        for (const { pid } of rows) killed.add(pid);
        await waitFor(() => errors.length > errorsBefore, { description: 'the ledger to notice' });
      }
      const last = [event()];
      await appendRetrying(`${prefix}-last`, last);
      sent.push(...last);
      await waitFor(() => received.events.length >= sent.length, {
        timeoutMs: 10_000,
        description: 'all events',
      });
      expect(received.events.map((e) => e.id)).to.deep.equal(sent.map((e) => e.id));
    } finally {
      await admin.end();
      await subscription.close();
      await received.done;
    }
  });

  it('serves subscriptions at the same position with one read per wake-up', async () => {
    const own = newPool(await migratedDatabase());
    // Notifications alone wake the subscriptions here: no poll interval interferes.
    const quiet = createPostgresLedger({ pool: own, pollIntervalMs: 600_000 });
    let pageReads = 0;
    let readsInFlight = 0;
    const query = own.query.bind(own) as (...args: unknown[]) => Promise<unknown>;
    own.query = ((...args: unknown[]) => {
      if ((args[0] as { name?: string }).name !== 'ledger-read-page') return query(...args);
      pageReads += 1;
      readsInFlight += 1;
      const read = query(...args);
      const done = () => void (readsInFlight -= 1);
      read.then(done, done);
      return read;
    }) as typeof own.query;
    const subscriptions = [];
    try {
      // A live event reaching a first subscription shows the LISTEN connection is up.
      const warmUp = quiet.subscribe(null);
      subscriptions.push(warmUp);
      const warm = collect(warmUp);
      const { position: head } = await quiet.append(name('warm'), [event()], 'noStream');
      await waitFor(() => warm.events.length === 1, { description: 'the warm-up event' });

      pageReads = 0;
      const followers = Array.from({ length: 6 }, () => quiet.subscribe(head));
      subscriptions.push(...followers);
      const received = followers.map(collect);
      // Their first read, at the head, shared: before the append, so it finds nothing.
      await waitFor(() => pageReads > 0 && readsInFlight === 0, { description: 'the first read' });
      expect(pageReads).to.equal(1);
      pageReads = 0;
      const live = event();
      await quiet.append(name('live'), [live], 'noStream');
      await waitFor(() => received.every((r) => r.events.length === 1), {
        description: 'the live event at every follower',
      });
      expect(received.map((r) => r.events[0]!.id)).to.deep.equal(followers.map(() => live.id));
      // One read when the append's notification came, shared by the six. (A transaction of
      // another test's database can hold the append back: the followers then look again
      // together, and one more shared read brings it.)
      expect(pageReads).to.be.at.least(1).and.below(followers.length);
    } finally {
      await Promise.all(subscriptions.map((s) => s.close()));
      await quiet.close();
      await own.end();
    }
  });

  it('commits concurrent appends in shared transactions', async () => {
    const results = await Promise.all(
      Array.from({ length: 64 }, () => ledger.append(name('group'), [event()], 'noStream')),
    );
    const transactions = new Set(results.map((result) => result.position.split(':')[0]));
    expect(transactions.size).to.be.below(results.length / 2);
  });

  it('fails only the call whose input the database refuses, not its batch', async () => {
    const streams = Array.from({ length: 20 }, () => name('batch'));
    const results = await Promise.allSettled(
      streams.map((stream, i) =>
        // jsonb cannot store the NUL character.
        ledger.append(stream, [event('Tested', i === 10 ? { text: '\u0000' } : {})], 'noStream'),
      ),
    );
    expect(results.map((result) => result.status)).to.deep.equal(
      streams.map((_, i) => (i === 10 ? 'rejected' : 'fulfilled')),
    );
    expect(await ledger.readStream(streams[10]!)).to.deep.equal([]);
    expect(await ledger.readStream(streams[11]!)).to.have.length(1);
  });

  it('decides a new stream contended by two instances exactly once', async () => {
    const second = createPostgresLedger({ pool });
    try {
      const streams = Array.from({ length: 40 }, () => name('race'));
      const outcomes = await Promise.all(
        streams.map(async (stream) => {
          const retried = event();
          const [a, b] = await Promise.allSettled([
            ledger.append(stream, [event()], 'noStream'),
            second.append(stream, [event()], 'noStream'),
          ]);
          const [c, d] = await Promise.all([
            ledger.append(`${stream}-same`, [retried], 'noStream'),
            second.append(`${stream}-same`, [retried], 'noStream'),
          ]);
          return {
            statuses: [a.status, b.status].sort(),
            a,
            b,
            written: [c.written, d.written].sort(),
          };
        }),
      );
      for (const { statuses, a, b, written } of outcomes) {
        expect(statuses).to.deep.equal(['fulfilled', 'rejected']);
        const loser = [a, b].find(
          (result) => result.status === 'rejected',
        ) as PromiseRejectedResult;
        expect(loser.reason).to.be.instanceOf(WrongExpectedRevisionError);
        expect(written).to.deep.equal([false, true]);
      }
      for (const stream of streams) expect(await ledger.readStream(stream)).to.have.length(1);
    } finally {
      await second.close();
    }
  });

  it('rejects what it cannot store before queueing it', async () => {
    const stream = name('invalid');
    await expectRejection(ledger.append(stream, [], 'any'), RangeError);
    await expectRejection(
      ledger.append(stream, [{ ...event(), id: 'not-a-uuid' }], 'any'),
      RangeError,
    );
    await expectRejection(ledger.append(stream, [event()], -1n), RangeError);
    await expectRejection(ledger.append(stream, [event('T', { n: 1n })], 'any'), TypeError);
    expect(await ledger.readStream(stream)).to.deep.equal([]);
  });
});

async function expectRejection(attempt: Promise<unknown>, type: new (...args: never[]) => Error) {
  const error = await attempt.then(
    () => expect.fail('should have been rejected'),
    (thrown: unknown) => thrown,
  );
  expect(error).to.be.instanceOf(type);
}
