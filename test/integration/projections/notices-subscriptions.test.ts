/**
 * The notices projector's outbox fan-out of subscription events (projections/notices/
 * outbox-fan-out.ts): a removal stops what is still queued for the subscription, whether its
 * addition came in the same batch or an earlier one.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { DomainEvent } from '../../../src/domain/events.js';
import { address, hex, suiteTestDatabase } from './fixtures.js';
import { projectNotices } from './notice-projection.js';

interface OutboxState {
  verification: { method: string } | null;
  last_error: string | null;
  failed: boolean;
  delivered: boolean;
}

describe('projections: notices fan out subscription events to the outbox', function () {
  this.timeout(60_000);
  const database = suiteTestDatabase();

  /** A webhook subscription added, then removed by its own account. */
  function addedThenRemoved(): { id: string; events: DomainEvent[] } {
    const id = randomUUID();
    const account = address(7);
    return {
      id,
      events: [
        {
          type: 'SubscriptionAdded',
          data: {
            id,
            account,
            channel: { kind: 'webhook', url: `https://example.com/${id}`, secret: 'secret' },
            verification: { method: 'webhookChallenge', challenge: hex(7, 32).slice(2) },
            addedAt: '2025-01-01T00:30:00.000Z',
            authorisedBy: 'signature',
            signedDigest: hex(1, 32),
          },
        },
        {
          type: 'SubscriptionRemoved',
          data: {
            id,
            account,
            removedAt: '2025-01-01T00:40:00.000Z',
            authorisedBy: 'apiKey',
            signedDigest: null,
          },
        },
      ],
    };
  }

  async function outboxOf(id: string): Promise<OutboxState[]> {
    const { rows } = await database().db.raw<{ rows: OutboxState[] }>(
      `SELECT verification, last_error, failed_at IS NOT NULL AS failed,
          delivered_at IS NOT NULL AS delivered
        FROM delivery.outbox WHERE subscription_id = ?`,
      [id],
    );
    return rows;
  }

  for (const [split, sizes] of [
    ['in one batch', [2]],
    ['in two batches', [1]],
  ] as const) {
    it(`fails the verification request of a subscription added and removed ${split}`, async () => {
      const { id, events } = addedThenRemoved();
      await projectNotices(database(), events, sizes);
      const rows = await outboxOf(id);
      expect(rows).to.have.length(1);
      expect(rows[0]!.verification?.method).to.equal('webhookChallenge');
      expect(rows[0]).to.include({
        last_error: 'the subscription was removed',
        failed: true,
        delivered: false,
      });
    });
  }
});
