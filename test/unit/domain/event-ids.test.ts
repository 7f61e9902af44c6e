import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { expect } from 'chai';
import fc from 'fast-check';
import { deterministicEventId } from '../../../src/domain/event-ids.js';

/** The derivation ids had when they were first written: they must never change. */
function referenceId(...parts: readonly (string | number)[]): string {
  const bytes = keccak_256(new TextEncoder().encode(parts.join('\u001f'))).slice(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytesToHex(bytes);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

describe('deterministicEventId', () => {
  it('keeps the ids already written: a known id', () => {
    // Pinned from the first implementation (noble keccak), for an AuctionClosed event.
    const id = '057d9a43-b5af-888e-bbcb-3da0d24d5792';
    expect(referenceId('AuctionClosed', 'devnet', 42)).to.equal(id);
    expect(deterministicEventId('AuctionClosed', 'devnet', 42)).to.equal(id);
  });

  it('equals the original derivation for any parts (unicode and long inputs included)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.integer()), {
          maxLength: 6,
        }),
        (parts) => {
          expect(deterministicEventId(...parts)).to.equal(referenceId(...parts));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('is a version-8 RFC 9562 UUID', () => {
    fc.assert(
      fc.property(fc.string(), (part) => {
        expect(deterministicEventId(part)).to.match(
          /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
        );
      }),
    );
  });
});
