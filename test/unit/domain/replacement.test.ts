import { expect } from 'chai';
import type { OrderUid } from '../../../src/domain/events.js';
import { foldOrder, type OrderState } from '../../../src/domain/lifecycle.js';
import {
  REPLACED_BY,
  hasDigest,
  replacementCancellation,
  replacementRefusal,
  replacingOrder,
} from '../../../src/domain/replacement.js';
import { eventPayloadProblem } from '../../../schemas/event-payloads.js';
import { OTHER, OWNER, placed } from '../../property/arbitraries.js';

const OLD: OrderUid = `0x${'01'.repeat(56)}`;
const NEW: OrderUid = `0x${'02'.repeat(56)}`;
const NEWER: OrderUid = `0x${'03'.repeat(56)}`;
const AT = new Date('2030-01-01T00:00:00Z');

describe('order replacement', () => {
  const old = foldOrder([placed(OLD)]) as OrderState;

  it("derives the cancellation's id from both UIDs: a retry repeats it, another order does not", () => {
    const first = replacementCancellation('devnet', OLD, NEW, OWNER, AT);
    expect(replacementCancellation('devnet', OLD, NEW, OWNER, new Date()).id).to.equal(first.id);
    expect(replacementCancellation('devnet', OLD, NEWER, OWNER, AT).id).to.not.equal(first.id);
  });

  it('records an API cancellation of the old order, valid for its v1 schema, naming the new one', () => {
    const event = replacementCancellation('devnet', OLD, NEW, OWNER, AT);
    expect(event.data).to.include({ uid: OLD, source: 'api', by: OWNER });
    expect(eventPayloadProblem(event.type, event.version, event.data)).to.equal(null);
    expect(event.metadata).to.deep.equal({ [REPLACED_BY]: NEW });
    expect(replacingOrder(event.metadata)).to.equal(NEW);
    expect(replacingOrder({})).to.equal(null);
  });

  it('recognises the new order by its digest, the first 32 bytes of its UID', () => {
    expect(hasDigest(NEW, `0x${'02'.repeat(32)}`)).to.equal(true);
    expect(hasDigest(NEW, `0x${'03'.repeat(32)}`)).to.equal(false);
  });

  it('wants an ECDSA new order first, then the same owner', () => {
    expect(replacementRefusal(old, { owner: OWNER, signingScheme: 'eip712' })).to.equal(null);
    expect(replacementRefusal(old, { owner: OWNER, signingScheme: 'ethsign' })).to.equal(null);
    for (const signingScheme of ['presign', 'eip1271'] as const) {
      expect(replacementRefusal(old, { owner: OTHER, signingScheme })).to.deep.equal({
        errorType: 'InvalidSignature',
        description: 'Malformed signature',
      });
    }
    expect(replacementRefusal(old, { owner: OTHER, signingScheme: 'eip712' })?.errorType).to.equal(
      'WrongOwner',
    );
  });
});
