import { expect } from 'chai';
import { EVENT_VERSIONS, type EventType } from '../../../src/domain/events.js';
import { UPCASTERS, upcast } from '../../../src/domain/upcast.js';
import { OWNER, cancelled, placed } from '../../property/arbitraries.js';

const UID = `0x${'01'.repeat(56)}` as const;

describe('upcast', () => {
  it('has exactly one step per version below the current one, for every event type', () => {
    for (const type of Object.keys(EVENT_VERSIONS) as EventType[]) {
      expect(UPCASTERS[type], type).to.have.length(EVENT_VERSIONS[type] - 1);
    }
  });

  it('returns current-version events as they were stored', () => {
    for (const event of [placed(UID), cancelled(UID, 'api', OWNER)]) {
      const stored = JSON.parse(JSON.stringify(event.data));
      expect(upcast(event.type, EVENT_VERSIONS[event.type], stored)).to.deep.equal(event);
    }
  });

  it('throws on an unknown type rather than misreading the ledger', () => {
    expect(() => upcast('OrderExploded', 1, {})).to.throw(/unknown event type/);
    expect(() => upcast('toString', 1, {})).to.throw(/unknown event type/);
  });

  it('throws on a version it does not know', () => {
    for (const version of [0, -1, 1.5, EVENT_VERSIONS.OrderPlaced + 1, Number.NaN]) {
      expect(() => upcast('OrderPlaced', version, {}), String(version)).to.throw(/schema version/);
    }
  });
});
