/**
 * The notices projector: what GET /accounts/{account}/notifications serves, and the delivery
 * outbox rows of every new notice (one per subscription of its account active at that point
 * of the ledger), written in the same transaction. A batch reads the state its events touch
 * (./load-plan.ts), derives the notices (./derive-notices.ts, where the rules are), writes them,
 * and fans them out to the outbox (./outbox-fan-out.ts).
 */
import { eventsOfTypes } from '../events.js';
import type { Projector } from '../projector.js';
import { perSchema } from '../sql.js';
import { deriveNotices } from './derive-notices.js';
import { isEmptyPlan, loadPlan } from './load-plan.js';
import { NOTICE_EVENT_TYPES, type NoticeEvent } from './notice-events.js';
import { applySubscriptions, subscriptionsToLoad } from './outbox-fan-out.js';
import type { LoadedSubscription, NoticeOrderRow, NoticeRow, PresignatureRow } from './rows.js';
import { migrateNotices, NOTICE_TABLES, NOTICES_BY_ACCOUNT_INDEX } from './migrations.js';
import {
  loadBindings,
  noticeColumns,
  noticesStatements,
  orderColumns,
  outboxColumns,
  presignatureBindings,
  presignatureColumns,
  removalColumns,
  subscriptionBindings,
  subscriptionColumns,
  verifiedColumns,
} from './statements.js';

type Rows<Row> = { rows: Row[] };

export function noticesProjector(): Projector {
  const sqlFor = perSchema(noticesStatements);

  return {
    name: 'notices',
    // 3: rows that depended on how the events were batched (a failed settlement's hold on a
    // closed order; a subscription added and removed in one batch) rebuilt alike.
    version: 3,
    gathers: true,
    tables: NOTICE_TABLES,
    readerIndexes: [NOTICES_BY_ACCOUNT_INDEX],
    eventTypes: NOTICE_EVENT_TYPES,
    migrate: migrateNotices,
    async handle(trx, events, schema) {
      const batch = eventsOfTypes<NoticeEvent['type']>(events, NOTICE_EVENT_TYPES);
      if (batch.length === 0) return;
      const sql = sqlFor(schema);

      const plan = loadPlan(batch);
      const read = async <Row>(statement: string, bindings: string[]) =>
        ((await trx.raw(statement, bindings)) as Rows<Row>).rows;
      // Both reads go together (on a pipelined connection, in one round trip).
      const [loaded, presignatures] = await Promise.all([
        isEmptyPlan(plan) ? [] : read<NoticeOrderRow>(sql.loadOrders, loadBindings(plan)),
        plan.presignatures.length === 0
          ? []
          : read<PresignatureRow>(sql.loadPresignatures, presignatureBindings(plan)),
      ]);
      const derived = deriveNotices(batch, loaded, presignatures);

      // The state upserts are on their way while the notices' bindings are built; the
      // connection runs the statements in this order (on a pipelined one, they go together).
      const upserted = Promise.all([
        orderColumns.run(trx, sql.upsertOrders, derived.orders),
        presignatureColumns.run(trx, sql.upsertPresignatures, derived.presignatures),
      ]);
      // Awaited below; until then a failure must not count as an unhandled rejection.
      upserted.catch(() => undefined);
      const inserted = new Set<string>();
      try {
        if (derived.notices.length > 0) {
          const rows = derived.notices.map(({ notice, network }): NoticeRow => ({
            ...notice,
            network,
          }));
          const ids = await read<{ id: string }>(sql.insertNotices, noticeColumns.bindings(rows));
          for (const { id } of ids) inserted.add(id);
        }
      } finally {
        // Its failure, if any, is the one to report (the insert then failed in its wake).
        await upserted;
      }

      const toLoad = subscriptionsToLoad(derived, inserted);
      if (toLoad.accounts.length === 0 && toLoad.ids.length === 0) return;
      const subscriptions = await read<LoadedSubscription>(
        sql.loadSubscriptions,
        subscriptionBindings(toLoad),
      );
      const { added, verified, removed, outbox } = applySubscriptions(
        subscriptions,
        derived,
        inserted,
      );
      // Sent together, run in this order (one connection runs its statements as sent): the
      // outbox rows of the batch's notices exist before a removal later in it stops them.
      await Promise.all([
        subscriptionColumns.run(trx, sql.insertSubscriptions, added),
        verifiedColumns.run(trx, sql.verifySubscriptions, verified),
        removalColumns.run(trx, sql.removeSubscriptions, removed),
        outboxColumns.run(trx, sql.insertOutbox, outbox),
        removalColumns.run(trx, sql.failRemovedOutbox, removed),
      ]);
    },
  };
}
