/**
 * The ledger a configuration names: PostgreSQL (in the service's database) or EventStoreDB. One
 * factory for the service, the projection thread and the replay.
 */
import type pg from 'pg';
import { withPayloadChecks, type PayloadCheck } from './checked-payloads.js';
import { createEventStoreLedger } from './eventstoredb.js';
import type { Ledger } from './port.js';
import { createPostgresLedger } from './postgres.js';

export type LedgerChoice = { kind: 'postgres' } | { kind: 'eventstoredb'; url: string };

export interface LedgerOptions {
  /** The PostgreSQL ledger's connections. */
  pool: pg.Pool;
  /** Failures it retries (a dropped subscription, a lost connection). */
  onError?: (err: unknown) => void;
  /** Refuses events whose payload its schema does not accept (a writer's ledger). */
  check?: PayloadCheck;
}

export function openLedger(choice: LedgerChoice, options: LedgerOptions): Ledger {
  const { pool, onError, check } = options;
  const ledger =
    choice.kind === 'postgres'
      ? createPostgresLedger({ pool, ...(onError ? { onError } : {}) })
      : createEventStoreLedger({ connectionString: choice.url, ...(onError ? { onError } : {}) });
  return check ? withPayloadChecks(ledger, check) : ledger;
}
