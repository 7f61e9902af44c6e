/**
 * Auctions recorded as the changes since an earlier one: any sequence of cuts, each recorded
 * against any earlier one, reads back whole; an unchanged cut records nothing; a change records
 * only what moved.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import {
  applyChanges,
  changesSince,
  unchanged,
  wholeCut,
  type CutRecord,
} from '../../../src/domain/auction-record.js';
import type { Address, FilterReason, OrderUid } from '../../../src/domain/events.js';

const uid = (n: number): OrderUid => `0x${n.toString(16).padStart(112, '0')}`;
const token = (n: number): Address => `0x${n.toString(16).padStart(40, '0')}`;
const REASONS: FilterReason[] = ['InsufficientBalance', 'MissingNativePrice', 'DustOrder'];

/** A cut of up to 12 of 20 orders, 8 tokens and 6 filtered orders, in a random order. */
const cuts = fc
  .record({
    orders: fc.uniqueArray(fc.record({ n: fc.nat(19), executed: fc.nat(3) }), {
      selector: (o) => o.n,
      maxLength: 12,
    }),
    prices: fc.uniqueArray(fc.record({ n: fc.nat(7), price: fc.nat(2) }), {
      selector: (p) => p.n,
      maxLength: 8,
    }),
    filtered: fc.uniqueArray(fc.record({ n: fc.integer({ min: 20, max: 29 }), r: fc.nat(2) }), {
      selector: (f) => f.n,
      maxLength: 6,
    }),
  })
  .map((c): CutRecord => ({
    orders: c.orders.map((o) => ({ uid: uid(o.n), executed: String(o.executed) })),
    prices: Object.fromEntries(c.prices.map((p) => [token(p.n), String(p.price + 1)])),
    filtered: c.filtered.map((f) => ({ uid: uid(f.n), reason: REASONS[f.r]! })),
  }));

/** As sets: what an auction holds, not the order it lists them in. */
const normalised = (cut: CutRecord) => ({
  orders: [...cut.orders].sort((a, b) => a.uid.localeCompare(b.uid)),
  prices: Object.fromEntries(Object.entries(cut.prices).sort(([a], [b]) => a.localeCompare(b))),
  filtered: [...cut.filtered].sort((a, b) => a.uid.localeCompare(b.uid)),
});

describe('auctions recorded as changes', () => {
  it('property: every cut reads back whole from its base, whichever earlier auction that is', () => {
    fc.assert(
      fc.property(
        fc.array(cuts, { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat()),
        (seq, picks) => {
          const read: CutRecord[] = [];
          seq.forEach((cut, i) => {
            // Each records against a random earlier auction, or whole.
            const pick = picks[i] ?? 0;
            const base = i === 0 || pick % (i + 1) === i ? null : pick % i;
            const changes =
              base === null ? wholeCut(cut) : changesSince({ id: base, cut: seq[base]! }, cut);
            const back = applyChanges(base === null ? null : read[base]!, changes);
            expect(normalised(back)).to.deep.equal(normalised(cut));
            read.push(back);
          });
        },
      ),
    );
  });

  it('keeps the base’s order, fills moved in place, new orders last', () => {
    const base: CutRecord = {
      orders: [1, 2, 3].map((n) => ({ uid: uid(n), executed: '0' })),
      prices: {},
      filtered: [],
    };
    const next: CutRecord = {
      orders: [
        { uid: uid(4), executed: '0' },
        { uid: uid(3), executed: '0' },
        { uid: uid(1), executed: '5' },
      ],
      prices: {},
      filtered: [],
    };
    const changes = changesSince({ id: 7, cut: base }, next);
    expect(changes).to.deep.include({
      base: 7,
      orders: [
        { uid: uid(4), executed: '0' },
        { uid: uid(1), executed: '5' },
      ],
      left: [uid(2)],
    });
    expect(applyChanges(base, changes).orders.map((o) => o.uid)).to.deep.equal([
      uid(1),
      uid(3),
      uid(4),
    ]);
  });

  it('records nothing of a cut that is its base again, and only what moved otherwise', () => {
    fc.assert(
      fc.property(cuts, (cut) => {
        expect(unchanged(changesSince({ id: 1, cut }, cut))).to.equal(true);
        expect(unchanged(wholeCut(cut))).to.equal(false);
      }),
    );
    const base: CutRecord = {
      orders: [{ uid: uid(1), executed: '0' }],
      prices: { [token(1)]: '10', [token(2)]: '20' },
      filtered: [{ uid: uid(2), reason: 'DustOrder' }],
    };
    const moved = changesSince(
      { id: 3, cut: base },
      {
        ...base,
        prices: { [token(1)]: '11' },
        filtered: [{ uid: uid(2), reason: 'InsufficientBalance' }],
      },
    );
    expect(moved).to.deep.include({
      orders: [],
      left: [],
      prices: { [token(1)]: '11' },
      unpriced: [token(2)],
      filtered: [{ uid: uid(2), reason: 'InsufficientBalance' }],
      unfiltered: [],
    });
  });

  it('refuses changes whose base it was not given', () => {
    const cut: CutRecord = { orders: [], prices: {}, filtered: [] };
    expect(() => applyChanges(null, changesSince({ id: 9, cut }, cut))).to.throw(/auction 9/);
  });
});
