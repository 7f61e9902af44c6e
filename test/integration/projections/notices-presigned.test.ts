/**
 * The notices of pre-signed orders (projections/notices/batch.ts): placing one takes no
 * signature and may name any owner, so it tells its owner nothing until its pre-signature, which
 * only the owner can set, is on the canonical chain.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { DomainEvent, OrderPlacedV1, PreSignatureSetV1 } from '../../../src/domain/events.js';
import {
  address,
  orderCancelled,
  orderPlaced,
  preSignatureSet,
  suiteTestDatabase,
  tableContents,
  tradeSettled,
} from './fixtures.js';
import { auction, close, noticesOf, place, projectNotices, VALID_TO } from './notice-projection.js';

/** A pre-signed order of a victim's account, as anyone may place one. */
function presigned(n: number): OrderPlacedV1 {
  const base = orderPlaced(n, { owner: address(7) });
  return orderPlaced(n, {
    owner: address(7),
    signingScheme: 'presign',
    signature: '0x',
    order: { ...base.order, validTo: VALID_TO, partiallyFillable: true },
  });
}

let block = 500;
const preSignature = (order: OrderPlacedV1, signed = true): PreSignatureSetV1 =>
  preSignatureSet(order, signed, ++block);
const set = (data: PreSignatureSetV1): DomainEvent => ({ type: 'PreSignatureSet', data });
const reorged = (data: PreSignatureSetV1): DomainEvent => ({
  type: 'ChainFactReverted',
  data: {
    network: data.network,
    revertedEventId: randomUUID(),
    reverted: { type: 'PreSignatureSet', data },
    reason: 'reorg',
  },
});
const expiry = () => close(auction(VALID_TO + 12));

describe('projections: notices of pre-signed orders', function () {
  this.timeout(120_000);
  const database = suiteTestDatabase();

  const typesOf = async (events: readonly DomainEvent[], order: OrderPlacedV1) =>
    (await noticesOf(database(), events)).filter((n) => n.uid === order.uid).map((n) => n.type);

  it('tells nothing of a pre-signed order whose pre-signature never came', async () => {
    const [cancelled, expired] = [presigned(1), presigned(2)];
    const events = [
      place(cancelled),
      place(expired),
      { type: 'OrderCancelled', data: orderCancelled(cancelled, 'api') },
      expiry(),
    ] satisfies DomainEvent[];
    expect(await noticesOf(database(), events)).to.deep.equal([]);
  });

  it('tells its owner once the pre-signature is on chain, set before or after the placement', async () => {
    const [after, before] = [presigned(3), presigned(4)];
    const signedFirst = preSignature(before);
    const events: DomainEvent[] = [
      set(signedFirst),
      place(after),
      place(before),
      set(preSignature(after)),
      { type: 'TradeSettled', data: tradeSettled(after, { sell: 10n ** 20n, buy: 200n }) },
      expiry(),
    ];
    expect(await typesOf(events, after)).to.deep.equal(['order_partially_filled', 'order_expired']);
    expect(await typesOf(events, before)).to.deep.equal(['order_expired']);
  });

  it('a revocation keeps the notices on; a reorg that took back the only pre-signature stops them', async () => {
    const [revoked, reverted] = [presigned(5), presigned(6)];
    const signedReverted = preSignature(reverted);
    const events: DomainEvent[] = [
      place(revoked),
      place(reverted),
      set(preSignature(revoked)),
      set(preSignature(revoked, false)),
      set(signedReverted),
      reorged(signedReverted),
      expiry(),
    ];
    expect(await typesOf(events, revoked)).to.deep.equal(['order_expired']);
    expect(await typesOf(events, reverted)).to.deep.equal([]);
  });

  it('gives the same rows however the events are split into batches', async () => {
    const orders = [7, 8, 9].map(presigned);
    const [late, early, lost] = orders as [OrderPlacedV1, OrderPlacedV1, OrderPlacedV1];
    const lostSignature = preSignature(lost);
    const events: DomainEvent[] = [
      set(preSignature(early)),
      ...orders.map(place),
      set(lostSignature),
      close(auction(VALID_TO - 30)),
      set(preSignature(late)),
      reorged(lostSignature),
      expiry(),
    ];
    const built: string[][] = [];
    for (const sizes of [[events.length], [1], [2], [3, 1, 4]]) {
      const schema = await projectNotices(database(), events, sizes);
      built.push(
        (
          await Promise.all(
            ['notices', 'notice_orders', 'notice_presignatures'].map((table) =>
              tableContents(database().db, schema, table),
            ),
          )
        ).flat(),
      );
    }
    for (const rows of built.slice(1)) expect(rows).to.deep.equal(built[0]);
    expect(await typesOf(events, late)).to.deep.equal(['order_expired']);
    expect(await typesOf(events, early)).to.deep.equal(['order_expired']);
    expect(await typesOf(events, lost)).to.deep.equal([]);
  });
});
