/**
 * The token-holder indexer's tables, in schema `chain`: per network and token a block cursor and
 * every holder's balance. Not a read model: they come from the chain, not the ledger, and a
 * replay leaves them alone. A token's balances and cursor always change in one transaction, so
 * the balances are exactly those of the transfers up to the cursor's block. Their tables:
 * MIGRATIONS.md.
 */
import type pg from 'pg';
import type { Address, Hex } from '../domain/events.js';
import type { BlockRef } from './indexer-store.js';
import type { InTransaction } from './ports.js';
import type { BalanceChange } from './transfer-logs.js';

/**
 * The tokens' cursors were not where the step read them (null: absent): another instance moved
 * them, e.g. a leader that lost its lock finishing its step. Nothing was applied.
 */
export class CursorConflict extends Error {}

export interface TokenHoldersStore {
  /** The cursor of every token with one. */
  cursors(): Promise<Map<Address, BlockRef>>;
  /**
   * Applies the changes of these tokens' transfers after `from` up to `to`, and moves their
   * cursors from `from` to `to`; throws `CursorConflict` when any cursor is not at `from`.
   */
  advance(
    tokens: readonly Address[],
    from: BlockRef | null,
    changes: readonly BalanceChange[],
    to: BlockRef,
  ): Promise<void>;
  /** Forgets these tokens' balances and cursors: they are indexed again from their start. */
  reset(tokens: readonly Address[]): Promise<void>;
}

/** Postgres' unique_violation. */
const UNIQUE_VIOLATION = '23505';

export function createTokenHoldersStore(
  pool: pg.Pool,
  inTransaction: InTransaction,
  network: string,
): TokenHoldersStore {
  /** A compare-and-set: a range is applied once, whoever else runs a step at the same time. */
  const moveCursors = async (
    client: pg.PoolClient,
    tokens: readonly Address[],
    from: BlockRef | null,
    to: BlockRef,
  ) => {
    if (from === null) {
      try {
        await client.query(
          `INSERT INTO chain.token_cursors (network, token, block_number, block_hash)
           SELECT $1, token, $3, $4 FROM unnest($2::text[]) AS t(token)`,
          [network, tokens, to.number, to.hash],
        );
      } catch (error) {
        if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw new CursorConflict();
        throw error;
      }
      return;
    }
    const { rowCount } = await client.query(
      `UPDATE chain.token_cursors SET block_number = $3, block_hash = $4
       WHERE network = $1 AND token = ANY($2::text[]) AND block_number = $5 AND block_hash = $6`,
      [network, tokens, to.number, to.hash, from.number, from.hash],
    );
    if (rowCount !== tokens.length) throw new CursorConflict();
  };

  return {
    async cursors() {
      const { rows } = await pool.query<{
        token: Address;
        block_number: string;
        block_hash: Hex;
      }>('SELECT token, block_number, block_hash FROM chain.token_cursors WHERE network = $1', [
        network,
      ]);
      return new Map(
        rows.map((r) => [r.token, { number: Number(r.block_number), hash: r.block_hash }]),
      );
    },
    advance: (tokens, from, changes, to) =>
      inTransaction(pool, async (client) => {
        await moveCursors(client, tokens, from, to);
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
