/**
 * The infrastructure the chain room is given rather than builds (DESIGN.md §2): only the
 * composition root imports src/postgres, and passes its pooled transactions in.
 */
import type pg from 'pg';

/** Runs `work` in one transaction on a connection of `pool`: committed if it resolves. */
export type InTransaction = (
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<void>,
) => Promise<void>;
