/**
 * Strictly increasing ids (auctions), as the reference's database sequences give. Such an id
 * must exist before the event that carries it does, so it comes from a sequence rather than
 * from a projection. The sequences are made by the store migrations (./migrations/steps.ts).
 */
import type pg from 'pg';

export function sequenceIds(pool: pg.Pool, sequence: string): () => Promise<number> {
  return async () => {
    const { rows } = await pool.query<{ id: string }>('SELECT nextval($1::regclass) AS id', [
      sequence,
    ]);
    return Number(rows[0]!.id);
  };
}
