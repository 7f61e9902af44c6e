/**
 * The token-holder indexer's tables, in schema `chain`: per network and token a block cursor and
 * every holder's balance. Not a read model: they come from the chain, not the ledger, and a
 * replay leaves them alone. A token's balances and cursor always change in one transaction, so
 * the balances are exactly those of the transfers up to the cursor's block.
 */
import type pg from 'pg';
import type { Address } from '../domain/events.js';
import type { BlockRef } from './indexer-store.js';
import type { BalanceChange } from './transfer-logs.js';

export async function migrateTokenHoldersStore(pool: pg.Pool): Promise<void> {
  await pool.query(`
    CREATE SCHEMA IF NOT EXISTS chain;
    CREATE TABLE IF NOT EXISTS chain.token_cursors (
      network text NOT NULL,
      token text NOT NULL,
      block_number bigint NOT NULL,
      block_hash text NOT NULL,
      PRIMARY KEY (network, token)
    );
    CREATE TABLE IF NOT EXISTS chain.token_balances (
      network text NOT NULL,
      token text NOT NULL,
      holder text NOT NULL,
      -- May be negative where indexing began after the chain's first blocks (a holder that sent
      -- what it received earlier): such rows are not reported.
      balance numeric(78,0) NOT NULL,
      PRIMARY KEY (network, token, holder)
    );
    -- GET /{chainId}/tokens/{token}/topHolders: the largest balances of one token.
    CREATE INDEX IF NOT EXISTS token_balances_by_size
      ON chain.token_balances (network, token, balance DESC);`);
}

export interface TokenHoldersStore {
  /** The cursor of every token with one. */
  cursors(): Promise<Map<Address, BlockRef>>;
  /** Applies the changes of these tokens' transfers up to `cursor` and moves their cursors. */
  advance(
    tokens: readonly Address[],
    changes: readonly BalanceChange[],
    cursor: BlockRef,
  ): Promise<void>;
  /** Forgets these tokens' balances and cursors: they are indexed again from their start. */
  reset(tokens: readonly Address[]): Promise<void>;
}

async function inTransaction(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<void>) {
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

export function createTokenHoldersStore(pool: pg.Pool, network: string): TokenHoldersStore {
  return {
    async cursors() {
      const { rows } = await pool.query<{
        token: Address;
        block_number: string;
        block_hash: string;
      }>('SELECT token, block_number, block_hash FROM chain.token_cursors WHERE network = $1', [
        network,
      ]);
      return new Map(
        rows.map((r) => [
          r.token,
          { number: Number(r.block_number), hash: r.block_hash as BlockRef['hash'] },
        ]),
      );
    },
    advance: (tokens, changes, cursor) =>
      inTransaction(pool, async (client) => {
        if (changes.length) {
          const columns = [
            network,
            changes.map((c) => c.token),
            changes.map((c) => c.holder),
            changes.map((c) => c.delta.toString()),
          ];
          // `changes` holds each (token, holder) once: one statement may not update a row twice.
          await client.query(
            `INSERT INTO chain.token_balances (network, token, holder, balance)
             SELECT $1, * FROM unnest($2::text[], $3::text[], $4::numeric[])
             ON CONFLICT (network, token, holder)
               DO UPDATE SET balance = chain.token_balances.balance + EXCLUDED.balance`,
            columns,
          );
          // Emptied accounts leave the table (and its index), which otherwise only grows.
          await client.query(
            `DELETE FROM chain.token_balances WHERE network = $1 AND balance = 0
               AND (token, holder) IN (SELECT * FROM unnest($2::text[], $3::text[]))`,
            columns.slice(0, 3),
          );
        }
        await client.query(
          `INSERT INTO chain.token_cursors (network, token, block_number, block_hash)
           SELECT $1, token, $3, $4 FROM unnest($2::text[]) AS t(token)
           ON CONFLICT (network, token)
             DO UPDATE SET block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash`,
          [network, tokens, cursor.number, cursor.hash],
        );
      }),
    reset: (tokens) =>
      inTransaction(pool, async (client) => {
        for (const table of ['chain.token_balances', 'chain.token_cursors']) {
          await client.query(
            `DELETE FROM ${table} WHERE network = $1 AND token = ANY($2::text[])`,
            [network, tokens],
          );
        }
      }),
  };
}
