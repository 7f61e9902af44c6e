/**
 * Quote lookups for order placement, in the quote store. Every `unexpired` lookup asked for in
 * one turn of the event loop goes to PostgreSQL as one statement, and each caller still gets
 * exactly what the lone query (one pair, kind and `now`) gives: the newest 100 quotes expiring
 * after its `now`.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import knex, { type Knex } from 'knex';
import type { Address, OrderKind } from '../../../src/domain/events.js';
import type { StoredQuote } from '../../../src/domain/quote.js';
import { createQuoteQueries, type QuoteQueries } from '../../../src/queries/quotes.js';
import { migratedDatabase } from '../../support/postgres.js';
import { statementsNaming } from '../../support/statements.js';

const NETWORKS = ['mainnet', 'gnosis'];
const token = (n: number): Address => `0x${n.toString(16).padStart(40, '0')}`;
const TOKENS = [token(0xa1), token(0xa2), token(0xa3)];
const KINDS: OrderKind[] = ['sell', 'buy'];
const T0 = Date.parse('2030-01-01T00:00:00.000Z');

interface Lookup {
  network: string;
  pair: { sellToken: Address; buyToken: Address; kind: OrderKind };
  now: Date;
}

function quote(
  id: number,
  network: string,
  sellToken: Address,
  buyToken: Address,
  kind: OrderKind,
  expiresMs: number,
): StoredQuote {
  return {
    network,
    id,
    from: token(0xf0),
    quote: {
      sellToken,
      buyToken,
      receiver: null,
      sellAmount: String(1000 + id),
      buyAmount: String(2000 + id),
      validTo: 2_000_000_000,
      appData: `0x${'00'.repeat(32)}`,
      feeAmount: '0',
      kind,
      sellTokenBalance: 'erc20',
      buyTokenBalance: 'erc20',
      signingScheme: 'eip712',
    },
    fullAppData: null,
    onchainOrder: false,
    gasAmount: '100000',
    gasPrice: '1',
    sellTokenPrice: '1',
    solver: token(0xf1),
    verified: id % 3 === 0,
    createdAt: new Date(T0 - 60_000).toISOString(),
    expiration: new Date(T0 + expiresMs).toISOString(),
  };
}

/**
 * Quotes of every network, ordered pair and kind, expiring on whole seconds 0–59 after T0 (ties
 * included) and now and then a millisecond off; one pair has 250, so the limit of 100 bites.
 */
function quotes(): StoredQuote[] {
  const out: StoredQuote[] = [];
  const pairs = TOKENS.flatMap((sell) => TOKENS.filter((b) => b !== sell).map((b) => [sell, b]));
  let id = 0;
  for (let i = 0; i < 900; i++) {
    const network = NETWORKS[i % NETWORKS.length]!;
    const [sell, buy] = pairs[(i * 7) % pairs.length]!;
    const kind = KINDS[(i * 5) % 3 === 0 ? 1 : 0]!;
    const offset = ((i * 7919) % 60) * 1000 + (i % 11 === 0 ? 1 : 0);
    out.push(quote(++id, network, sell!, buy!, kind, offset));
  }
  for (let i = 0; i < 250; i++) {
    out.push(quote(++id, 'mainnet', TOKENS[0]!, TOKENS[1]!, 'sell', ((i * 37) % 60) * 1000));
  }
  return out;
}

/** A database whose quote store holds `stored`, as they are, ids included. */
async function storeHolding(stored: readonly StoredQuote[]): Promise<Knex> {
  const url = await migratedDatabase();
  const db = knex({ client: 'pg', connection: url, pool: { min: 0, max: 4 } });
  await db.raw(
    `INSERT INTO quote_store.quotes (network, id, sell_token, buy_token, kind, expiration, quote)
     SELECT q->>'network', (q->>'id')::bigint, q->'quote'->>'sellToken', q->'quote'->>'buyToken',
       q->'quote'->>'kind', (q->>'expiration')::timestamptz, q
     FROM jsonb_array_elements(?::jsonb) q`,
    [JSON.stringify(stored)],
  );
  return db;
}

const lookupArbitrary: fc.Arbitrary<Lookup> = fc.record({
  network: fc.constantFrom(...NETWORKS, 'sepolia'),
  pair: fc.record({
    sellToken: fc.constantFrom(...TOKENS),
    buyToken: fc.constantFrom(...TOKENS),
    kind: fc.constantFrom(...KINDS),
  }),
  // Before, on and after the quotes' expirations, to the millisecond.
  now: fc
    .tuple(fc.integer({ min: -3, max: 62 }), fc.constantFrom(-1, 0, 1))
    .map(([s, ms]) => new Date(T0 + s * 1000 + ms)),
});

describe('quote queries', () => {
  let db: Knex;
  let queries: QuoteQueries;
  /** The lone lookup, as it was before lookups were coalesced. */
  let alone: (lookup: Lookup) => Promise<StoredQuote[]>;

  before(async () => {
    db = await storeHolding(quotes());
    queries = createQuoteQueries(db);
    alone = async ({ network, pair, now }) => {
      const { rows } = await db.raw<{ rows: { quote: StoredQuote }[] }>(
        `SELECT quote FROM quote_store.quotes
         WHERE network = ? AND sell_token = ? AND buy_token = ? AND kind = ? AND expiration > ?
         ORDER BY id DESC LIMIT 100`,
        [network, pair.sellToken, pair.buyToken, pair.kind, now.toISOString()],
      );
      return rows.map((r) => r.quote);
    };
  });
  after(() => db.destroy());

  it('answers the lookups of one turn with one statement, each as if it ran alone', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(lookupArbitrary, { minLength: 1, maxLength: 40 }),
        async (lookups) => {
          const { result: together, texts } = await statementsNaming('"quote_store"."quotes"', () =>
            Promise.all(lookups.map((l) => queries.unexpired(l.network, l.pair, l.now))),
          );
          expect(texts).to.have.length(1);
          for (const [i, lookup] of lookups.entries()) {
            const expected = await alone(lookup);
            expect(together[i]).to.deep.equal(expected);
            // And a lookup alone in its turn, through the same code.
            expect(await queries.unexpired(lookup.network, lookup.pair, lookup.now)).to.deep.equal(
              expected,
            );
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('gives the newest 100 of a pair with more unexpired quotes than that', async () => {
    const pair = { sellToken: TOKENS[0]!, buyToken: TOKENS[1]!, kind: 'sell' as const };
    const [all, later] = await Promise.all([
      queries.unexpired('mainnet', pair, new Date(T0 - 1000)),
      queries.unexpired('mainnet', pair, new Date(T0 + 30_000)),
    ]);
    expect(all).to.have.length(100);
    const ids = all.map((q) => q.id);
    expect(ids).to.deep.equal([...ids].sort((a, b) => b - a));
    expect(later.every((q) => Date.parse(q.expiration) > T0 + 30_000)).to.equal(true);
    expect(later).to.deep.equal(
      await alone({ network: 'mainnet', pair, now: new Date(T0 + 30_000) }),
    );
  });

  it('finds no quote for an id beyond what a double holds exactly, instead of failing', async () => {
    const known = quotes()[0]!;
    expect((await queries.byId(known.network, known.id))?.id).to.equal(known.id);
    for (const id of [-(2 ** 63), 2 ** 63 - 1024, Number.MAX_SAFE_INTEGER + 1]) {
      expect(await queries.byId(known.network, id)).to.equal(null);
    }
  });

  it('gives every caller of an identical lookup its own list', async () => {
    const lookup = { sellToken: TOKENS[0]!, buyToken: TOKENS[1]!, kind: 'sell' as const };
    const now = new Date(T0);
    const [a, b] = await Promise.all([
      queries.unexpired('mainnet', lookup, now),
      queries.unexpired('mainnet', lookup, now),
    ]);
    expect(a).to.deep.equal(b);
    a.reverse();
    expect(a).not.to.deep.equal(b);
  });

  it('looks each caller up by the quotes_by_pair index', async () => {
    const plan = await storeHolding([]);
    // Many quotes over many pairs, with no ANALYZE afterwards: the statistics lag.
    await plan.raw(`INSERT INTO quote_store.quotes (network, id, sell_token, buy_token, kind,
        expiration, quote)
      SELECT 'mainnet', i, '0x' || lpad(to_hex(i % 97), 40, '0'),
        '0x' || lpad(to_hex(i % 89 + 1000), 40, '0'), CASE WHEN i % 2 = 0 THEN 'sell' ELSE 'buy' END,
        now() + (i % 600) * interval '1 second', '{}'::jsonb
      FROM generate_series(1, 50000) i`);
    const pair = { sellToken: token(5), buyToken: token(1005), kind: 'sell' as const };
    const { texts } = await statementsNaming('"quote_store"."quotes"', () =>
      createQuoteQueries(plan).unexpired('mainnet', pair, new Date()),
    );
    const [text] = texts;
    // The plan a prepared statement settles on after a few executions, parameters unbound.
    const { rows } = await plan
      .raw<{ rows: { 'QUERY PLAN': string }[] }>(`EXPLAIN (GENERIC_PLAN) ${text!}`)
      .finally(() => plan.destroy());
    const shown = rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(shown, shown).to.contain('quotes_by_pair');
    expect(shown, shown).not.to.contain('Seq Scan on quotes');
  });
});
