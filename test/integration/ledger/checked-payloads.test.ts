/**
 * The service appends through a ledger that checks every payload against its schema
 * (schemas/events/): an event the schema refuses fails its append and nothing of it is written.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { EVENT_VERSIONS, type OrderPlacedV1 } from '../../../src/domain/events.js';
import { InvalidEventPayloadError } from '../../../src/ledger/checked-payloads.js';
import { cancelled, placed } from '../../property/arbitraries.js';
import { suiteTestService } from '../../support/service.js';

const UID = `0x${'0c'.repeat(56)}` as const;

describe('ledger: payloads checked against their schemas', function () {
  this.timeout(60_000);
  const service = suiteTestService();

  const newEvent = (type: 'OrderPlaced' | 'OrderCancelled', data: unknown) => ({
    id: randomUUID(),
    type,
    version: EVENT_VERSIONS[type],
    data,
  });

  it('refuses an append holding one malformed event, writes none of it, and names the field', async () => {
    const stream = `order-mainnet-${randomUUID()}`;
    const good = newEvent('OrderPlaced', placed(UID).data);
    const bad = newEvent('OrderCancelled', { ...cancelled(UID, 'api').data, cancelledAt: 'soon' });
    const error: unknown = await service()
      .ledger.append(stream, [good, bad], 'noStream')
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).to.be.instanceOf(InvalidEventPayloadError);
    expect((error as Error).message).to.match(
      new RegExp(`^stream ${stream}: OrderCancelled v1 refused: /cancelledAt must match pattern`),
    );
    expect(await service().ledger.readStream(stream)).to.deep.equal([]);

    // The same stream takes the valid events, as if nothing had been tried.
    const fixed = { ...bad, data: cancelled(UID, 'api').data };
    await service().ledger.append(stream, [good, fixed], 'noStream');
    const stored = await service().ledger.readStream(stream);
    expect(stored.map((e) => e.type)).to.deep.equal(['OrderPlaced', 'OrderCancelled']);
  });

  it('refuses a payload at a version it has no schema for', async () => {
    const stream = `order-mainnet-${randomUUID()}`;
    const data: OrderPlacedV1 = placed(UID).data as OrderPlacedV1;
    const error: unknown = await service()
      .ledger.append(stream, [{ ...newEvent('OrderPlaced', data), version: 2 }], 'noStream')
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect((error as Error).message).to.match(
      /OrderPlaced v2 refused: no schema for OrderPlaced v2$/,
    );
    expect(await service().ledger.readStream(stream)).to.deep.equal([]);
  });
});
