/**
 * The chain indexer's own bookkeeping, per network: its block cursor, every fact it appended
 * (to know what a reorg takes back), and how often each log was reverted (so a log that comes
 * back after a reorg is a new fact with a new id). Not a read model: the ledger holds the facts,
 * and a replay leaves this alone. It lives in schema `chain` (its tables: MIGRATIONS.md).
 */
import type pg from 'pg';
import type { ChainFact, Hex } from '../domain/events.js';
import type { InTransaction } from './ports.js';

export interface BlockRef {
  number: number;
  hash: Hex;
}

export interface IndexedFact {
  fact: ChainFact;
  eventId: string;
  /** How many reverts of this log preceded it (part of its event id). */
  incarnation: number;
}

export interface IndexerStore {
  cursor(): Promise<BlockRef | null>;
  /** Blocks that hold recorded facts, newest first, above `floor`. */
  factBlocks(): Promise<BlockRef[]>;
  /** How many times each of these logs was reverted before (0 when never). */
  incarnations(logs: readonly { blockHash: Hex; logIndex: number }[]): Promise<number[]>;
  /** Records appended facts and moves the cursor, atomically. */
  advance(facts: readonly IndexedFact[], cursor: BlockRef): Promise<void>;
  /** Recorded facts above a height, newest first. */
  factsAbove(blockNumber: number): Promise<IndexedFact[]>;
  /** Forgets reverted facts (counting their reverts) and moves the cursor back, atomically. */
  rollBack(reverted: readonly IndexedFact[], cursor: BlockRef | null): Promise<void>;
}

export function createIndexerStore(
  pool: pg.Pool,
  inTransaction: InTransaction,
  network: string,
): IndexerStore {
  const setCursor = (client: pg.PoolClient, cursor: BlockRef | null) =>
    cursor
      ? client.query(
          `INSERT INTO chain.indexer_cursors (network, block_number, block_hash) VALUES ($1, $2, $3)
           ON CONFLICT (network) DO UPDATE SET block_number = $2, block_hash = $3`,
          [network, cursor.number, cursor.hash],
        )
      : client.query('DELETE FROM chain.indexer_cursors WHERE network = $1', [network]);
  const rows = (facts: readonly IndexedFact[]) => ({
    hashes: facts.map((f) => f.fact.data.chain.blockHash),
    indexes: facts.map((f) => f.fact.data.chain.logIndex),
  });

  return {
    async cursor() {
      const { rows: found } = await pool.query<{ block_number: string; block_hash: Hex }>(
        'SELECT block_number, block_hash FROM chain.indexer_cursors WHERE network = $1',
        [network],
      );
      const row = found[0];
      return row ? { number: Number(row.block_number), hash: row.block_hash } : null;
    },
    async factBlocks() {
      const { rows: found } = await pool.query<{ block_number: string; block_hash: Hex }>(
        `SELECT DISTINCT block_number, block_hash FROM chain.indexer_facts WHERE network = $1
         ORDER BY block_number DESC`,
        [network],
      );
      return found.map((r) => ({ number: Number(r.block_number), hash: r.block_hash }));
    },
    async incarnations(logs) {
      if (logs.length === 0) return [];
      const { rows: found } = await pool.query<{
        block_hash: Hex;
        log_index: number;
        times: number;
      }>(
        `SELECT block_hash, log_index, times FROM chain.indexer_reverted_logs
         WHERE network = $1 AND (block_hash, log_index) IN
           (SELECT * FROM unnest($2::text[], $3::int[]))`,
        [network, logs.map((l) => l.blockHash), logs.map((l) => l.logIndex)],
      );
      const times = new Map(found.map((r) => [`${r.block_hash}/${r.log_index}`, r.times]));
      return logs.map((l) => times.get(`${l.blockHash}/${l.logIndex}`) ?? 0);
    },
    advance: (facts, cursor) =>
      inTransaction(pool, async (client) => {
        if (facts.length) {
          const { hashes, indexes } = rows(facts);
          await client.query(
            `INSERT INTO chain.indexer_facts
               (network, block_number, block_hash, log_index, event_id, incarnation, fact)
             SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::int[], $5::text[], $6::int[],
               $7::jsonb[])
             ON CONFLICT DO NOTHING`,
            [
              network,
              facts.map((f) => f.fact.data.chain.blockNumber),
              hashes,
              indexes,
              facts.map((f) => f.eventId),
              facts.map((f) => f.incarnation),
              facts.map((f) => JSON.stringify(f.fact)),
            ],
          );
        }
        await setCursor(client, cursor);
      }),
    async factsAbove(blockNumber) {
      const { rows: found } = await pool.query<{
        event_id: string;
        incarnation: number;
        fact: ChainFact;
      }>(
        `SELECT event_id, incarnation, fact FROM chain.indexer_facts
         WHERE network = $1 AND block_number > $2 ORDER BY block_number DESC, log_index DESC`,
        [network, blockNumber],
      );
      return found.map((r) => ({ fact: r.fact, eventId: r.event_id, incarnation: r.incarnation }));
    },
    rollBack: (reverted, cursor) =>
      inTransaction(pool, async (client) => {
        if (reverted.length) {
          const { hashes, indexes } = rows(reverted);
          await client.query(
            `DELETE FROM chain.indexer_facts WHERE network = $1 AND (block_hash, log_index) IN
               (SELECT * FROM unnest($2::text[], $3::int[]))`,
            [network, hashes, indexes],
          );
          await client.query(
            `INSERT INTO chain.indexer_reverted_logs (network, block_hash, log_index, times)
             SELECT $1, h, i, 1 FROM unnest($2::text[], $3::int[]) AS x(h, i)
             ON CONFLICT (network, block_hash, log_index)
               DO UPDATE SET times = chain.indexer_reverted_logs.times + 1`,
            [network, hashes, indexes],
          );
        }
        await setCursor(client, cursor);
      }),
  };
}
