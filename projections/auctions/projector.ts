/**
 * The auctions projector: every closed auction, with what `GET /api/v1/auction` serves and
 * what the competition endpoints will (filtered orders, solutions, winners).
 */
import type { Knex } from 'knex';
import type { AuctionClosedV1 } from '../../src/domain/events.js';
import { ColumnSet } from '../columns.js';
import { eventsOfTypes } from '../events.js';
import type { Projector } from '../projector.js';
import { qualified } from '../sql.js';

export const AUCTIONS_TABLE = 'auctions';

interface AuctionRow {
  network: string;
  id: number;
  block: number;
  cut_at: string;
  auction: AuctionClosedV1;
}

const columns = new ColumnSet<AuctionRow>([
  ['network', 'text'],
  ['id', 'bigint'],
  ['block', 'bigint'],
  ['cut_at', 'timestamptz'],
  ['auction', 'jsonb'],
]);

async function migrateAuctions(db: Knex, schema: string): Promise<void> {
  await db.raw(`
    CREATE TABLE IF NOT EXISTS ${qualified(schema, AUCTIONS_TABLE)} (
      network text NOT NULL,
      id bigint NOT NULL,
      block bigint NOT NULL,
      cut_at timestamptz NOT NULL,
      auction jsonb NOT NULL,
      PRIMARY KEY (network, id)
    )`);
}

export function auctionsProjector(): Projector {
  return {
    name: 'auctions',
    version: 1,
    tables: [AUCTIONS_TABLE],
    migrate: migrateAuctions,
    async handle(trx, events, schema) {
      const rows = eventsOfTypes(events, new Set(['AuctionClosed'] as const)).map(
        ({ data }): AuctionRow => ({
          network: data.network,
          id: data.id,
          block: data.block,
          cut_at: data.cutAt,
          auction: data,
        }),
      );
      if (rows.length === 0) return;
      await trx.raw(
        `INSERT INTO ${qualified(schema, AUCTIONS_TABLE)} (${columns.names})
         SELECT ${columns.names} FROM ${columns.unnest}
         ON CONFLICT (network, id) DO NOTHING`,
        columns.bindings(rows),
      );
    },
  };
}
