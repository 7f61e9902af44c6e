import { expect } from 'chai';
import knex, { type Knex } from 'knex';
import type pg from 'pg';
import { createPool, knexOptions } from '../../../src/postgres/connection-options.js';
import { holdLock, type HeldLock } from '../../support/held-lock.js';
import { freshDatabase } from '../../support/postgres.js';
import { waitFor } from '../../support/wait.js';

/** A statement deadline tests can outlast quickly. */
const DEADLINES = { connectMs: 5_000, queryMs: 200 };

describe('connection deadlines', () => {
  let url: string;
  /** Held for the whole suite: its `waitStatement` outlasts any deadline. */
  let lock: HeldLock;

  before(async () => {
    url = await freshDatabase();
    lock = await holdLock(url, 'connection-options-test');
  });

  after(async () => {
    await lock?.close();
  });

  describe('knex', () => {
    let db: Knex;
    const backend = async (on: Knex | Knex.Transaction) =>
      (await on.raw<{ rows: { pid: number }[] }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;

    beforeEach(() => {
      // One connection: whatever runs after a timeout shows whether that connection came back.
      db = knex({
        client: 'pg',
        ...knexOptions(url, DEADLINES, { min: 0, max: 1 }),
        // Knex warns of the connection closed for the timeout, which is the point here.
        log: { warn: () => undefined },
      });
    });

    afterEach(async () => {
      await db.destroy();
    });

    it('fails a transaction whose statement outlasts the deadline with the timeout itself', async () => {
      let inside = 0;
      const failure = await db
        .transaction(async (trx) => {
          inside = await backend(trx);
          await trx.raw(lock.waitStatement);
        })
        .then(
          () => null,
          (err: unknown) => err,
        );
      // Not the ROLLBACK that the closed connection could not send: the server rolled back.
      expect(String(failure)).to.match(/Query read timeout$/);
      // The connection was closed, not lent again: the next statement runs on another one.
      const next = await backend(db);
      expect(next).to.not.equal(inside);
      // Its session ends (and with it the transaction) once the server sees the client gone.
      const alive = async () =>
        (
          await db.raw<{ rows: { n: number }[] }>(
            'SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ?',
            [inside],
          )
        ).rows[0]!.n;
      await waitFor(async () => (await alive()) === 0, {
        description: 'the closed session to end',
      });
    });

    it('fails a statement outside a transaction with the timeout, and serves the next', async () => {
      const failure = await db.raw(lock.waitStatement).then(
        () => null,
        (err: unknown) => err,
      );
      expect(String(failure)).to.match(/Query read timeout$/);
      expect((await db.raw<{ rows: unknown[] }>('SELECT 1')).rows).to.have.length(1);
    });
  });

  describe('pg pool', () => {
    let pool: pg.Pool;

    beforeEach(() => {
      pool = createPool(url, DEADLINES, 1);
      pool.on('error', () => undefined);
    });

    afterEach(async () => {
      await pool.end();
    });

    it('closes a connection whose statement timed out, and serves the next on another', async () => {
      const client = await pool.connect();
      const inside = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))
        .rows[0]!.pid;
      const failure = await client.query(lock.waitStatement).then(
        () => null,
        (err: unknown) => err,
      );
      client.release();
      expect(String(failure)).to.match(/Query read timeout$/);
      const next = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      expect(next.rows[0]!.pid).to.not.equal(inside);
    });
  });
});
