/** One transaction on a pooled connection: committed when `work` resolves, rolled back if not. */
import type pg from 'pg';

export async function inTransaction(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<void>,
): Promise<void> {
  const client = await pool.connect();
  // The pool stops listening to a client it hands out. Between two queries of `work` (while it
  // awaits something else) a lost session emits 'error' with no query to reject, which would
  // crash the process; the failure surfaces instead on the next query, and the client is
  // discarded rather than returned to the pool.
  let broken: Error | undefined;
  const onError = (err: Error) => (broken = err);
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    await work(client);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
