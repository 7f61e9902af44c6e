/**
 * Strictly increasing ids (quotes, auctions), as the reference's database sequences give. Such
 * an id must exist before the event that carries it does, so it comes from a sequence rather
 * than from a projection.
 */
import type pg from 'pg';

const NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export async function createSequence(pool: pg.Pool, name: string): Promise<() => Promise<number>> {
  if (!NAME.test(name)) throw new Error(`invalid sequence name: ${name}`);
  await pool.query(`CREATE SEQUENCE IF NOT EXISTS ${name}`);
  return async () => {
    const { rows } = await pool.query<{ id: string }>(`SELECT nextval('${name}') AS id`);
    return Number(rows[0]!.id);
  };
}
