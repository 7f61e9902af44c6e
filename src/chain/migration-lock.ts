/**
 * The first statement of every chain store's migration: it serialises them across instances
 * (concurrent `CREATE … IF NOT EXISTS` of one schema or table can still collide on a fresh
 * database). A migration is one multi-statement query, so one transaction: the lock is held
 * until its tables exist.
 */
export const LOCK_CHAIN_MIGRATIONS =
  "SELECT pg_advisory_xact_lock(hashtext('batchbook.chain.migration'));";
