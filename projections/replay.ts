/**
 * Rebuilding read models from the ledger (`npm run replay`, DESIGN.md §5): project every event
 * into a fresh schema, then swap it in for the live one in a single transaction.
 *
 * The rebuild reads the ledger in large pages, prefetching the next page while the current one
 * is applied. Each projector applies the pages in order on its own connection, each page in a
 * transaction that does not wait for the WAL flush (a crash mid-rebuild only means running it
 * again; the swap itself is a normal durable commit). The projectors do not wait for each other
 * page by page: a fast one runs up to `PAGES_AHEAD` pages ahead of the slowest, so PostgreSQL
 * and Node stay busy instead of idling at every page until the slowest projector is done.
 * The indexes only the API reads (`Projector.readerIndexes`) are built after the last page, and
 * every table is analysed before the schema can be swapped in.
 */
import type { Knex } from 'knex';
import type { Ledger, RecordedEvent } from '../src/ledger/port.js';
import { prepareProjectors, readCheckpoints } from './checkpoints.js';
import { inOrder } from './in-order.js';
import { lockBatch, lockMigrations } from './locks.js';
import { CHECKPOINT_CHANNEL, noticePayload } from './notifications.js';
import type { Projector } from './projector.js';
import { checkSchemaName, qualified } from './sql.js';

export interface ReplayOptions {
  ledger: Ledger;
  db: Knex;
  projectors: readonly Projector[];
  /** Built from scratch: dropped first when it exists. */
  schema: string;
  /** Events per read and per transaction; default 5000. */
  batchSize?: number;
  /** After each applied batch: events so far. */
  onProgress?(events: number): void;
}

export interface ReplayResult {
  /** Events read from the ledger (every projector saw each of them). */
  events: number;
  /** The position every projector's checkpoint now holds (null: empty ledger). */
  position: string | null;
}

export const DEFAULT_REPLAY_BATCH = 5000;
/** Pages read but not yet applied by every projector, at most (memory: pages × batch size). */
const PAGES_AHEAD = 4;

/** Applies one page to one projector and moves its checkpoint, in `trx`. */
async function applyPage(
  trx: Knex.Transaction,
  schema: string,
  projector: Projector,
  events: readonly RecordedEvent[],
): Promise<void> {
  await projector.handle(inOrder(trx), events, schema);
  await trx.raw(
    `UPDATE ${qualified(schema, 'projection_checkpoints')} SET position = ? WHERE projector = ?`,
    [events[events.length - 1]!.position, projector.name],
  );
}

/**
 * Reads the ledger from `from` to its current end, applying each page through `apply`.
 * The next page is already on its way while the current one is applied.
 */
async function drain(
  ledger: Ledger,
  from: string | null,
  batchSize: number,
  apply: (events: readonly RecordedEvent[]) => Promise<void>,
): Promise<{ events: number; position: string | null }> {
  let position = from;
  let events = 0;
  let next = ledger.readAll(position, batchSize);
  for (;;) {
    const page = await next;
    if (page.length === 0) return { events, position };
    position = page[page.length - 1]!.position;
    next = ledger.readAll(position, batchSize);
    // Handled when awaited; until then a failure must not count as an unhandled rejection.
    next.catch(() => undefined);
    await apply(page);
    events += page.length;
  }
}

/** The reader indexes of `projectors` that exist in `schema`: name → definition. */
async function readerIndexesIn(
  db: Knex | Knex.Transaction,
  schema: string,
  projectors: readonly Projector[],
): Promise<{ names: string[]; found: Map<string, string> }> {
  const names = projectors.flatMap((p) => p.readerIndexes ?? []);
  const { rows } = await db.raw<{ rows: { indexname: string; indexdef: string }[] }>(
    'SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = ? AND indexname = ANY(?)',
    [schema, names],
  );
  return { names, found: new Map(rows.map((r) => [r.indexname, r.indexdef])) };
}

/**
 * Drops the projectors' reader indexes from `schema` and returns the statements that build them
 * again. A replay that stops before they run leaves a schema `swapInto` refuses.
 */
async function dropReaderIndexes(
  db: Knex,
  schema: string,
  projectors: readonly Projector[],
): Promise<string[]> {
  const { names, found } = await readerIndexesIn(db, schema, projectors);
  const missing = names.filter((name) => !found.has(name));
  if (missing.length > 0) {
    throw new Error(`no such reader indexes in ${schema}: ${missing.join(', ')}`);
  }
  for (const name of names) await db.raw(`DROP INDEX ${qualified(schema, name)}`);
  return [...found.values()];
}

export async function replayInto(options: ReplayOptions): Promise<ReplayResult> {
  const { ledger, db, projectors, onProgress } = options;
  const schema = checkSchemaName(options.schema);
  await db.raw(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await prepareProjectors(db, schema, projectors);
  const readerIndexes = await dropReaderIndexes(db, schema, projectors);
  // Read models are independent: each projector applies the pages in order on its own
  // connection. `applied` holds, per page not yet applied by all, the promise that it is.
  const tails = projectors.map(() => Promise.resolve());
  const applied: Promise<void>[] = [];
  let total = 0;
  /** Once a page failed, the pages still queued are skipped. */
  let failed = false;
  const apply = async (projector: Projector, page: readonly RecordedEvent[]) => {
    if (failed) return;
    try {
      await db.transaction(async (trx) => {
        await trx.raw('SET LOCAL synchronous_commit = off');
        await applyPage(trx, schema, projector, page);
      });
    } catch (err) {
      failed = true;
      throw err;
    }
  };
  let drained: ReplayResult;
  try {
    drained = await drain(ledger, null, options.batchSize ?? DEFAULT_REPLAY_BATCH, async (page) => {
      const done = projectors.map(
        (projector, i) => (tails[i] = tails[i]!.then(() => apply(projector, page))),
      );
      const all = Promise.all(done).then(() => {
        total += page.length;
        onProgress?.(total);
      });
      // Awaited in turn below; until then a failure must not count as an unhandled rejection.
      all.catch(() => undefined);
      applied.push(all);
      if (applied.length >= PAGES_AHEAD) await applied.shift();
    });
    for (const page of applied) await page;
  } catch (err) {
    // The other projectors' pages in flight end before the failure is reported: the caller may
    // drop the schema or close the pool next.
    failed = true;
    await Promise.allSettled(tails);
    throw err;
  }
  // Each on a connection of its own: PostgreSQL builds indexes of different tables in parallel.
  await Promise.all(readerIndexes.map((definition) => db.raw(definition)));
  // Statistics before the swap: tables PostgreSQL never analysed are planned with default
  // selectivities (an equality matches 0.5 % of the rows), and autovacuum would take a while.
  const tables = projectors.flatMap((projector) => projector.tables);
  await Promise.all(tables.map((table) => db.raw(`ANALYZE ${qualified(schema, table)}`)));
  return drained;
}

export interface SwapOptions {
  ledger: Ledger;
  db: Knex;
  projectors: readonly Projector[];
  /** The rebuilt schema (`replayInto`'s). */
  from: string;
  /** The live schema it replaces; default `read`. */
  to?: string;
  batchSize?: number;
}

/**
 * Makes `from` the live schema `to`, atomically. Holding every projector's batch lock on `to`
 * pauses the running projectors (of any process); meanwhile `from` catches up with what was
 * appended since the rebuild, and the schemas are renamed. The running projectors then find
 * their checkpoint moved and resume from the rebuilt one. The old schema is dropped afterwards.
 * Returns how many events the final catch-up applied and the position the live schema is at.
 */
export async function swapInto(options: SwapOptions): Promise<ReplayResult> {
  const { ledger, db, projectors } = options;
  const from = checkSchemaName(options.from);
  const to = checkSchemaName(options.to ?? 'read');
  const previous = checkSchemaName(`${to}_previous`);
  const result = await db.transaction(async (trx) => {
    await lockMigrations(trx, to);
    for (const projector of [...projectors].sort((a, b) => a.name.localeCompare(b.name))) {
      await lockBatch(trx, to, projector.name);
    }
    const positions = [...(await readCheckpoints(trx, from)).values()].map((r) => r.position);
    const start = positions[0] ?? null;
    const indexes = await readerIndexesIn(trx, from, projectors);
    if (positions.some((p) => p !== start) || indexes.found.size < indexes.names.length) {
      throw new Error(`${from} is not a complete replay`);
    }
    const caughtUp = await drain(
      ledger,
      start,
      options.batchSize ?? DEFAULT_REPLAY_BATCH,
      async (page) => {
        for (const projector of projectors) await applyPage(trx, from, projector, page);
      },
    );
    await trx.raw(`DROP SCHEMA IF EXISTS "${previous}" CASCADE`);
    const live = await trx.raw<{ rowCount: number }>(
      'SELECT 1 FROM pg_namespace WHERE nspname = ?',
      [to],
    );
    // Nothing to replace on a database that never ran the service.
    if (live.rowCount > 0) await trx.raw(`ALTER SCHEMA "${to}" RENAME TO "${previous}"`);
    await trx.raw(`ALTER SCHEMA "${from}" RENAME TO "${to}"`);
    for (const projector of projectors) {
      await trx.raw('SELECT pg_notify(?, ?)', [
        CHECKPOINT_CHANNEL,
        noticePayload({
          instance: 'replay',
          schema: to,
          projector: projector.name,
          position: caughtUp.position,
        }),
      ]);
    }
    return caughtUp;
  });
  await db.raw(`DROP SCHEMA IF EXISTS "${previous}" CASCADE`);
  return result;
}
