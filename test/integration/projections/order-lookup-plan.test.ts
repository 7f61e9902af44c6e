/**
 * The hot lookup (GET /orders/{uid}, coalesced into `uid = ANY($2)`) must use the primary key
 * even before PostgreSQL has statistics for a freshly filled table: a skip scan of the owner
 * index answered it 17× slower (BENCHMARKS.md, "Reads"). And every order read finds an order's
 * chain state by its key: joined by the network alone, a cut of 6,577 orders filtered 1.9
 * million rows (BENCHMARKS.md, "The chain state by its key").
 */
import { expect } from 'chai';
import knex, { type Knex } from 'knex';
import { migrateOrders } from '../../../projections/orders/migrations.js';
import { orderColumns, orderSources } from '../../../src/queries/order-view.js';
import { freshDatabase } from '../../support/postgres.js';

describe('order lookup plan', () => {
  let db: Knex;
  before(async () => {
    db = knex({ client: 'pg', connection: await freshDatabase() });
    await db.raw('CREATE SCHEMA read');
    await migrateOrders(db, 'read');
    // Bulk rows with no ANALYZE afterwards: the statistics lag, as after a burst of orders.
    await db.raw(`INSERT INTO read.orders (network, uid, owner, creation_date, class,
        signing_scheme, signature, sell_token, buy_token, sell_amount, buy_amount, valid_to,
        app_data, fee_amount, kind, partially_fillable, sell_token_balance, buy_token_balance,
        interactions, settlement_contract)
      SELECT 'devnet', '0x' || md5(i::text) || md5((i + 1)::text) || md5((i + 2)::text),
        '0x' || substr(md5((i % 50)::text), 1, 40), now(), 'limit', 'eip712', '0x', '0x01',
        '0x02', 1, 1, 2000000000, '0x03', 0, 'sell', false, 'erc20', 'erc20', '{}', '0x04'
      FROM generate_series(1, 20000) i`);
    await db.raw(`INSERT INTO read.order_chain_state (network, uid, executed_sell_amount)
      SELECT network, uid, 1 FROM read.orders LIMIT 500`);
  });
  after(() => db.destroy());

  it('looks orders up by the primary key, not by a skip scan of the owner index', async () => {
    const uids = (
      await db.raw<{ rows: { uid: string }[] }>('SELECT uid FROM read.orders LIMIT 8')
    ).rows.map((r) => r.uid);
    const plan = await db.transaction(async (trx) => {
      // Prepared statements run generic plans after a few executions: plan that case.
      await trx.raw('SET LOCAL plan_cache_mode = force_generic_plan');
      await trx.raw(`PREPARE lookup(text, text[]) AS SELECT ${orderColumns(true)}
        ${orderSources((name) => `read.${name}`)}
        WHERE o.network = $1 AND o.uid = ANY($2::text[])`);
      // EXPLAIN EXECUTE takes no bind parameters; the UIDs are hex read back from the table.
      const { rows } = await trx.raw<{ rows: { 'QUERY PLAN': string }[] }>(
        `EXPLAIN EXECUTE lookup('devnet', '{${uids.join(',')}}')`,
      );
      await trx.raw('DEALLOCATE lookup');
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    expect(plan).to.contain('orders_pkey');
    expect(plan).not.to.contain('orders_by_owner');
  });

  it('finds each order’s chain state by its key, for every order of a network', async () => {
    const { rows } = await db.raw<{ rows: { 'QUERY PLAN': string }[] }>(
      `EXPLAIN SELECT ${orderColumns(false)} ${orderSources((name) => `read.${name}`)}
        WHERE o.network = 'devnet' AND o.cancellation_date IS NULL
          AND COALESCE(c.onchain_invalidations, 0) = 0
        ORDER BY o.creation_date, o.uid`,
    );
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).to.match(
      /order_chain_state_pkey[^\n]*\n[^\n]*Index Cond: \(\(network = o\.network\) AND \(uid = o\.uid\)\)/,
    );
  });
});
