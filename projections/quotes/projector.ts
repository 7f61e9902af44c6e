/**
 * The quotes projector: every quote given, with its expiry, for linking orders to quotes
 * (reference §7 step 9). Expired quotes stay: a projector is a function of the ledger, not of
 * the clock; the queries ask for unexpired ones.
 */
import type { Knex } from 'knex';
import type { QuoteCreatedV1 } from '../../src/domain/events.js';
import { ColumnSet } from '../columns.js';
import { eventsOfTypes } from '../events.js';
import type { Projector } from '../projector.js';
import { qualified } from '../sql.js';

export const QUOTES_TABLE = 'quotes';

const TYPES: ReadonlySet<'QuoteCreated'> = new Set(['QuoteCreated']);

interface QuoteRow {
  network: string;
  id: number;
  sell_token: string;
  buy_token: string;
  kind: string;
  signing_scheme: string;
  onchain_order: boolean;
  expiration: string;
  quote: QuoteCreatedV1;
}

const columns = new ColumnSet<QuoteRow>([
  ['network', 'text'],
  ['id', 'bigint'],
  ['sell_token', 'text'],
  ['buy_token', 'text'],
  ['kind', 'text'],
  ['signing_scheme', 'text'],
  ['onchain_order', 'boolean'],
  ['expiration', 'timestamptz'],
  ['quote', 'jsonb'],
]);

async function migrateQuotes(db: Knex, schema: string): Promise<void> {
  const quotes = qualified(schema, QUOTES_TABLE);
  await db.raw(`
    CREATE TABLE IF NOT EXISTS ${quotes} (
      network text NOT NULL,
      id bigint NOT NULL,
      sell_token text NOT NULL,
      buy_token text NOT NULL,
      kind text NOT NULL,
      signing_scheme text NOT NULL,
      onchain_order boolean NOT NULL,
      expiration timestamptz NOT NULL,
      -- The whole QuoteCreated payload: what an order linked to it embeds.
      quote jsonb NOT NULL,
      PRIMARY KEY (network, id)
    )`);
  // An order without a quote id looks for unexpired quotes of its pair and kind.
  await db.raw(`CREATE INDEX IF NOT EXISTS quotes_by_pair
    ON ${quotes} (network, sell_token, buy_token, kind, expiration)`);
}

export function quotesProjector(): Projector {
  return {
    name: 'quotes',
    version: 1,
    tables: [QUOTES_TABLE],
    eventTypes: TYPES,
    migrate: migrateQuotes,
    async handle(trx, events, schema) {
      const rows = eventsOfTypes(events, TYPES).map(({ data }): QuoteRow => ({
        network: data.network,
        id: data.id,
        sell_token: data.quote.sellToken,
        buy_token: data.quote.buyToken,
        kind: data.quote.kind,
        signing_scheme: data.quote.signingScheme,
        onchain_order: data.onchainOrder,
        expiration: data.expiration,
        quote: data,
      }));
      if (rows.length === 0) return;
      await trx.raw(
        `INSERT INTO ${qualified(schema, QUOTES_TABLE)} (${columns.names})
         SELECT ${columns.names} FROM ${columns.unnest}
         ON CONFLICT (network, id) DO NOTHING`,
        columns.bindings(rows),
      );
    },
  };
}
