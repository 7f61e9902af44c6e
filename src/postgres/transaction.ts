/** One transaction on a pooled connection: committed when `work` resolves, rolled back if not. */
import type pg from 'pg';

export async function inTransaction(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<void>,
): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await work(client);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
