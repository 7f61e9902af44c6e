/** The quote store: each quote under the next id, whole, until the first sweep at or after its expiration. */
import { expect } from 'chai';
import knex, { type Knex } from 'knex';
import {
  createQuoteStore,
  RESERVED_IDS,
  type QuoteStore,
} from '../../../src/commands/quote-store.js';
import type { StoredQuote } from '../../../src/domain/quote.js';
import { createQuoteQueries, type QuoteQueries } from '../../../src/queries/quotes.js';
import { migratedDatabase } from '../../support/postgres.js';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const SELL = `0x${'a1'.repeat(20)}` as const;
const BUY = `0x${'a2'.repeat(20)}` as const;

function given(expiresInSeconds: number): Omit<StoredQuote, 'id'> {
  return {
    network: 'mainnet',
    from: `0x${'f0'.repeat(20)}`,
    quote: {
      sellToken: SELL,
      buyToken: BUY,
      receiver: null,
      sellAmount: '1000',
      buyAmount: '2000',
      validTo: 2_000_000_000,
      appData: `0x${'00'.repeat(32)}`,
      feeAmount: '3',
      kind: 'sell',
      sellTokenBalance: 'erc20',
      buyTokenBalance: 'erc20',
      signingScheme: 'eip712',
    },
    fullAppData: '{}',
    onchainOrder: false,
    gasAmount: '100000',
    gasPrice: '1',
    sellTokenPrice: '1',
    solver: `0x${'00'.repeat(20)}`,
    verified: false,
    createdAt: new Date(T0).toISOString(),
    expiration: new Date(T0 + expiresInSeconds * 1000).toISOString(),
  };
}

describe('quote store', () => {
  let db: Knex;
  let store: QuoteStore;
  let queries: QuoteQueries;

  before(async () => {
    db = knex({ client: 'pg', connection: await migratedDatabase(), pool: { min: 0, max: 2 } });
    store = createQuoteStore(db);
    queries = createQuoteQueries(db);
  });
  after(() => db.destroy());

  it('stores each quote whole under the next id, until the first sweep at its expiration, and counts them', async () => {
    const soon = given(60);
    const later = given(600);
    const first = await store.add(soon);
    const second = await store.add(later);
    expect(second).to.be.greaterThan(first);
    expect(await queries.byId('mainnet', first)).to.deep.equal({ ...soon, id: first });
    expect(await store.counts()).to.deep.equal(new Map([['mainnet', 2]]));
    // An id for a quote no one stores (an order's own) is never another's.
    expect(await store.nextId()).to.be.greaterThan(second);

    expect(await store.sweep(new Date(T0 + 59_999))).to.equal(0);
    expect(await store.sweep(new Date(T0 + 60_000))).to.equal(1);
    expect(await store.counts()).to.deep.equal(new Map([['mainnet', 1]]));
    expect(await queries.byId('mainnet', first)).to.equal(null);
    expect(await queries.byId('mainnet', second)).to.deep.equal({ ...later, id: second });
    expect(await store.sweep(new Date(T0 + 60_000))).to.equal(0);
  });

  it('gives a burst of orders’ own quotes distinct ids in one round trip, never a stored quote’s', async () => {
    const store = createQuoteStore(db);
    const statements: string[] = [];
    const count = ({ sql }: { sql: string }) => statements.push(sql);
    db.on('query', count);
    try {
      const own = store.nextId();
      const stored = store.add(given(60));
      const burst = await Promise.all([own, ...Array.from({ length: 40 }, () => store.nextId())]);
      const ids = [...burst, await stored];
      expect(new Set(ids).size).to.equal(ids.length);
      expect(statements.filter((sql) => sql.includes('generate_series'))).to.have.length(1);
      // Once the reserved ids are given, the next burst reserves again.
      await Promise.all(Array.from({ length: RESERVED_IDS }, () => store.nextId()));
      expect(statements.filter((sql) => sql.includes('generate_series'))).to.have.length(2);
    } finally {
      db.off('query', count);
    }
  });
});
