/** Row counts of every table of a service's database, to show that nothing was dropped or lost. */
import pg from 'pg';

/** `schema.table` → rows, for every table outside PostgreSQL's own schemas. */
export async function tableCounts(databaseUrl: string): Promise<Record<string, number>> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows: tables } = await db.query<{ name: string }>(
      `SELECT format('%I.%I', table_schema, table_name) AS name FROM information_schema.tables
       WHERE table_type = 'BASE TABLE'
         AND table_schema NOT IN ('pg_catalog', 'information_schema')
       ORDER BY 1`,
    );
    const counts: Record<string, number> = {};
    for (const { name } of tables) {
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${name}`);
      counts[name] = rows[0]!.n;
    }
    return counts;
  } finally {
    await db.end();
  }
}
