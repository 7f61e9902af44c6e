/**
 * The live batch's transaction (projections/batch-transaction.ts), on a pipelined connection and
 * on one that is not:
 * the projector's statements and the checkpoint move commit together or not at all, whatever
 * the checkpoint row says by the time the batch holds its lock.
 */
import { expect } from 'chai';
import knex, { type Knex } from 'knex';
import { inBatchTransaction, type BatchMove } from '../../../projections/batch-transaction.js';
import {
  prepareProjectors,
  readCheckpoints,
  VersionChangedError,
} from '../../../projections/checkpoints.js';
import { inOrder } from '../../../projections/in-order.js';
import type { Projector } from '../../../projections/projector.js';
import { knexOptions } from '../../../src/postgres/connection-options.js';
import { holdLock } from '../../support/held-lock.js';
import { freshDatabase } from '../../support/postgres.js';
import { waitFor } from '../../support/wait.js';

const SCHEMA = 'read';
const items: Projector = {
  name: 'items',
  version: 1,
  tables: ['items'],
  eventTypes: new Set(),
  migrate: async (db, schema) =>
    void (await db.raw(`CREATE TABLE IF NOT EXISTS "${schema}".items (n int PRIMARY KEY, v text)`)),
  handle: async () => undefined,
};

for (const pipeline of [true, false]) {
  describe(`batch transaction (${pipeline ? 'pipelined' : 'one statement at a time'})`, () => {
    let db: Knex;
    /** One connection: every batch reuses the one the batch before it returned to the pool. */
    let batches: Knex;
    const move = (from: string | null, to: string): BatchMove => ({
      schema: SCHEMA,
      projector: 'items',
      version: 1,
      from,
      to,
      instance: 'test',
    });
    const rows = async () =>
      (
        await db.raw<{ rows: { n: number; v: string }[] }>(
          `SELECT n, v FROM ${SCHEMA}.items ORDER BY n`,
        )
      ).rows;
    const checkpoint = async () => (await readCheckpoints(db, SCHEMA)).get('items');
    const insert = 'INSERT INTO read.items (n, v) VALUES (?, ?)';
    /** The batch's failure (null when it succeeded). */
    const failureOf = (outcome: Promise<unknown>) =>
      outcome.then(
        () => null,
        (err: unknown) => err,
      );

    before(async () => {
      const url = await freshDatabase();
      db = knex({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
      const deadlines = { connectMs: 5_000, queryMs: 10_000 };
      batches = knex({
        client: 'pg',
        ...knexOptions(url, deadlines, { min: 0, max: 1 }, { pipelined: pipeline }),
      });
      await prepareProjectors(db, SCHEMA, [items]);
    });
    after(async () => {
      await batches?.destroy();
      await db?.destroy();
    });
    beforeEach(async () => {
      await db.raw(`TRUNCATE ${SCHEMA}.items`);
      await db.raw(`UPDATE ${SCHEMA}.projection_checkpoints SET version = 1, position = NULL`);
    });

    it('commits the statements sent together and the checkpoint move, in the order sent', async () => {
      const outcome = await inBatchTransaction(batches, move(null, '0:1'), async (trx) => {
        await Promise.all([
          trx.raw(insert, [1, 'a']),
          trx.raw(insert, [2, 'b']),
          // Runs after the insert it follows, although sent before that insert answered.
          trx.raw('UPDATE read.items SET v = ? WHERE n = ?', ['b2', 2]),
        ]);
      });
      expect(outcome).to.equal('applied');
      expect(await rows()).to.deep.equal([
        { n: 1, v: 'a' },
        { n: 2, v: 'b2' },
      ]);
      expect(await checkpoint()).to.deep.equal({ version: 1, position: '0:1' });
    });

    it('writes nothing and answers moved when the checkpoint left the position the batch starts from', async () => {
      await db.raw(`UPDATE ${SCHEMA}.projection_checkpoints SET position = '0:5'`);
      const outcome = await inBatchTransaction(batches, move('0:1', '0:2'), async (trx) => {
        await trx.raw(insert, [1, 'a']);
      });
      expect(outcome).to.equal('moved');
      expect(await rows()).to.deep.equal([]);
      expect(await checkpoint()).to.deep.equal({ version: 1, position: '0:5' });
    });

    it('writes nothing and stands down when another version owns the tables', async () => {
      await db.raw(`UPDATE ${SCHEMA}.projection_checkpoints SET version = 2`);
      const failed = await failureOf(
        inBatchTransaction(batches, move(null, '0:1'), async (trx) => {
          await trx.raw(insert, [1, 'a']);
        }),
      );
      expect(failed).to.be.instanceOf(VersionChangedError);
      expect(String(failed)).to.contain('version 2, this instance runs version 1');
      expect(await rows()).to.deep.equal([]);
    });

    it('rolls back on a failing statement, reports that statement, and leaves the connection usable', async () => {
      const failed = await failureOf(
        inBatchTransaction(batches, move(null, '0:1'), async (trx) => {
          await Promise.all([
            trx.raw(insert, [1, 'a']),
            trx.raw(insert, ['not a number', 'b']),
            trx.raw(insert, [3, 'c']),
          ]);
        }),
      );
      expect(String(failed)).to.contain('invalid input syntax for type integer');
      expect(await rows()).to.deep.equal([]);
      expect(await checkpoint()).to.deep.equal({ version: 1, position: null });

      // The same connection (the pool holds one) takes the next batch.
      const outcome = await inBatchTransaction(batches, move(null, '0:1'), async (trx) => {
        await trx.raw(insert, [1, 'a']);
      });
      expect(outcome).to.equal('applied');
      expect(await rows()).to.deep.equal([{ n: 1, v: 'a' }]);
    });

    it('rolls back when the projector fails in its own code, after statements it sent', async () => {
      const failed = await failureOf(
        inBatchTransaction(batches, move(null, '0:1'), async (trx) => {
          await trx.raw(insert, [1, 'a']);
          throw new Error('projector bug');
        }),
      );
      expect(String(failed)).to.equal('Error: projector bug');
      expect(await rows()).to.deep.equal([]);
      expect(await checkpoint()).to.deep.equal({ version: 1, position: null });
    });
  });
}

describe('inOrder', () => {
  let url: string;
  let db: Knex;
  const rows = async () =>
    (await db.raw<{ rows: { n: number; v: string }[] }>('SELECT n, v FROM items ORDER BY n')).rows;

  before(async () => {
    url = await freshDatabase();
    db = knex({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
    await db.raw('CREATE TABLE items (n int PRIMARY KEY, v text)');
  });
  after(() => db?.destroy());

  it('runs knex statements in the order they are sent, even on a pool', async () => {
    // The first statement waits on a lock the test holds: on a pool, the statements sent after
    // it would otherwise run meanwhile, on another connection.
    const lock = await holdLock(url, 'in-order-test');
    try {
      const trx = inOrder(db);
      const sent = Promise.all([
        trx.raw(`INSERT INTO items (n, v) SELECT ?, ? FROM (${lock.waitStatement}) AS held`, [
          1,
          'a',
        ]),
        trx.raw('UPDATE items SET v = ? WHERE n = ?', ['a2', 1]),
        trx.raw('DELETE FROM items WHERE v = ?', ['a']),
      ]);
      await waitFor(async () => (await lock.waiting()) === 1, {
        description: 'the first statement to wait on the lock',
      });
      await lock.release();
      await sent;
      expect(await rows()).to.deep.equal([{ n: 1, v: 'a2' }]);
    } finally {
      await lock.close();
    }
  });
});
