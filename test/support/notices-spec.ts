/**
 * Given/when/then specifications of the notices derivation (projections/notices/derive-notices.ts),
 * as emmett's projection specifications read: the events already projected (given), the next
 * batch (when), and the notices that batch adds (then).
 *
 * The state between the two batches is carried as the projector carries it: the order and
 * pre-signature rows the given batch wrote are what the next one loads, and a notice whose id is
 * already stored is not added again (the table's `ON CONFLICT DO NOTHING`). The next batch is
 * given every stored row, a superset of what the projector reads (./load-plan.ts names it; the
 * integration tests hold the derivation to those real reads). Each specification also derives
 * given and when as one batch and expects the same notices: the boundary changes nothing.
 */
import { expect } from 'chai';
import { deriveNotices } from '../../projections/notices/derive-notices.js';
import type { NoticeEvent } from '../../projections/notices/notice-events.js';
import type { NoticeOrderRow, PresignatureRow } from '../../projections/notices/rows.js';
import type { Notice, NoticeType } from '../../src/domain/notices.js';

/** A notice as a specification names it: its type, order and time, and its other metadata. */
export interface ExpectedNotice {
  type: NoticeType;
  order: string;
  at: string;
  [metadata: string]: unknown;
}

function expected(notice: Notice): ExpectedNotice {
  const { orderId, network: _network, ...metadata } = notice.metadata;
  return { type: notice.type, order: orderId, at: notice.timestamp, ...metadata };
}

/** The notices each batch adds, the batches projected one after the other. */
function project(batches: readonly (readonly NoticeEvent[])[]): Notice[][] {
  const orders = new Map<string, NoticeOrderRow>();
  const presignatures = new Map<string, PresignatureRow>();
  const stored = new Set<string>();
  return batches.map((events) => {
    const derived = deriveNotices(events, [...orders.values()], [...presignatures.values()]);
    for (const row of derived.orders) orders.set(`${row.network}/${row.uid}`, row);
    for (const row of derived.presignatures) presignatures.set(`${row.network}/${row.uid}`, row);
    const added = derived.notices.map((n) => n.notice).filter((n) => !stored.has(n.id));
    for (const notice of added) stored.add(notice.id);
    return added;
  });
}

export const noticesSpec = {
  given: (...given: NoticeEvent[]) => ({
    when: (...when: NoticeEvent[]) => {
      const then = (notices: readonly ExpectedNotice[]): Notice[] => {
        const [before, added] = project([given, when]);
        expect(added!.map(expected), 'the notices the batch adds').to.deep.equal(notices);
        const [together] = project([[...given, ...when]]);
        expect(together, 'the notices of both as one batch').to.deep.equal([...before!, ...added!]);
        return added!;
      };
      return { then, thenNothing: () => void then([]) };
    },
  }),
};
