/**
 * Batches reach Postgres column-wise: one array parameter per column, turned back into rows by
 * `unnest(...)`. Postgres parses array literals far faster than `json_to_recordset` parses the
 * same rows as JSON objects (measured here: 0.65 s against 1.6 s for 58,000 orders), and the
 * insert statement is what bounds both live throughput and replays.
 */
import type { ProjectionTransaction } from './projector.js';

export type Cell = string | number | boolean | null | object;

/** Column name (a key of the row) and its SQL type, in table order. */
export type Columns<Row> = readonly (readonly [keyof Row & string, string])[];

/** One element of an array literal: always quoted, so no value can read as NULL or a separator. */
function element(value: Cell): string {
  if (value === null) return 'NULL';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.includes('"') || text.includes('\\')
    ? `"${text.replace(/["\\]/g, '\\$&')}"`
    : `"${text}"`;
}

export class ColumnSet<Row> {
  /** `a, b, c` */
  readonly names: string;
  /** `unnest(?::text[], ?::numeric[], …) AS x(a, b, …)`, with one binding per column. */
  readonly unnest: string;

  constructor(private readonly columns: Columns<Row>) {
    this.names = columns.map(([name]) => name).join(', ');
    const arrays = columns.map(([, type]) => `?::${type}[]`).join(', ');
    this.unnest = `unnest(${arrays}) AS x(${this.names})`;
  }

  /** Runs `statement` (built on `unnest`) with these rows bound; nothing when there are none. */
  async run(trx: ProjectionTransaction, statement: string, rows: readonly Row[]): Promise<void> {
    if (rows.length) await trx.raw(statement, this.bindings(rows));
  }

  /** The array literals to bind to `unnest`, column by column. */
  bindings(rows: readonly Row[]): string[] {
    return this.columns.map(
      ([name]) => `{${rows.map((row) => element(row[name] as Cell)).join(',')}}`,
    );
  }
}
