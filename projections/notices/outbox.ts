/**
 * The delivery outbox: one row per (notice, subscription) to deliver, and one per verification
 * request a new subscription's destination is sent, written by the notices projector in the
 * same transaction as the notice (or the subscription), read and updated by src/delivery/.
 *
 * It lives in its own schema, outside the read models: `npm run replay` rebuilds the notices
 * but must not deliver them again. A replayed notice keeps its id, so its rows are already here
 * (`ON CONFLICT DO NOTHING`); what was delivered stays delivered. Not being rebuilt, it changes
 * only by store migrations, which the service's start applies before the projectors run
 * (MIGRATIONS.md describes its columns).
 */
export const OUTBOX_TABLE = 'delivery.outbox';
