/**
 * Hot read queries as named prepared statements on a connection of knex's pool: PostgreSQL
 * parses and plans each once per connection instead of on every request (knex's `raw` sends
 * unnamed statements). Placeholders are PostgreSQL's own ($1, $2, …).
 */
import type { Knex } from 'knex';
import type pg from 'pg';

export async function preparedRows<Row extends pg.QueryResultRow>(
  db: Knex,
  name: string,
  text: string,
  values: readonly unknown[],
): Promise<Row[]> {
  const client = (await db.client.acquireConnection()) as pg.Client;
  try {
    return (await client.query<Row>({ name, text, values: [...values] })).rows;
  } finally {
    await db.client.releaseConnection(client);
  }
}
