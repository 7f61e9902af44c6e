import { expect } from 'chai';
import fc from 'fast-check';
import {
  computeOrderUid,
  domainSeparator,
  orderDigest,
  splitOrderUid,
} from '../../src/domain/eip712.js';
import type { Address, DomainEvent, OrderUid, SigningScheme } from '../../src/domain/events.js';
import { bytesToHex } from '../../src/bytes/hex.js';
import {
  decideCancellation,
  foldOrder,
  statusInputs,
  type CancellationDecision,
  type OrderState,
} from '../../src/domain/lifecycle.js';
import { SETTLEMENT_CONTRACT } from '../../src/domain/networks.js';
import { orderStatus, type OrderStatus } from '../../src/domain/status.js';
import {
  OTHER,
  OWNER,
  address,
  cancelled,
  chainAt,
  orderData,
  placed,
  preSignature,
  trade,
} from './arbitraries.js';

const NOW = 1_700_000_000;
const RUNS = { numRuns: 150 };

type Step =
  | { t: 'trade'; pick: bigint; fee: bigint; other: bigint; complete: boolean }
  | { t: 'cancel'; source: 'api' | 'chain' }
  | { t: 'presign'; signed: boolean; block: number; log: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    t: fc.constant('trade' as const),
    pick: fc.bigInt({ min: 0n, max: 1n << 96n }),
    fee: fc.bigInt({ min: 0n, max: 1000n }),
    other: fc.bigInt({ min: 1n, max: 1n << 96n }),
    complete: fc.boolean(),
  }),
  fc.record({
    t: fc.constant('cancel' as const),
    source: fc.constantFrom('api' as const, 'chain' as const),
  }),
  fc.record({
    t: fc.constant('presign' as const),
    signed: fc.boolean(),
    block: fc.nat({ max: 20 }),
    log: fc.nat({ max: 5 }),
  }),
);

interface History {
  uid: OrderUid;
  owner: Address;
  kind: 'sell' | 'buy';
  scheme: SigningScheme;
  sellAmount: bigint;
  buyAmount: bigint;
  validTo: number;
  steps: Step[];
}

const history = (uid: fc.Arbitrary<OrderUid>): fc.Arbitrary<History> =>
  fc.record({
    uid,
    owner: fc.constantFrom(OWNER, OTHER),
    kind: fc.constantFrom('sell' as const, 'buy' as const),
    scheme: fc.constantFrom<SigningScheme>('eip712', 'ethsign', 'presign', 'eip1271'),
    sellAmount: fc.bigInt({ min: 1n, max: 1n << 96n }),
    buyAmount: fc.bigInt({ min: 1n, max: 1n << 96n }),
    validTo: fc.integer({ min: NOW - 50, max: NOW + 50 }),
    steps: fc.array(step, { maxLength: 8 }),
  });

const uidArb = fc
  .integer({ min: 1, max: 255 })
  .map((n): OrderUid => `0x${n.toString(16).padStart(2, '0').repeat(56)}`);

/** Half of these are open ECDSA orders of OWNER, so that accepted cancellations are common. */
const cancellableLeaning: fc.Arbitrary<History> = fc.oneof(
  history(uidArb),
  history(uidArb).map((h) => ({
    ...h,
    owner: OWNER,
    scheme: 'eip712' as const,
    validTo: NOW + 200,
    steps: h.steps.filter((s) => s.t === 'presign' || (s.t === 'trade' && !s.complete)),
  })),
);

/**
 * The events of a history. Trades are valid as the settlement contract makes them: the net
 * sell (sell orders) or the buy (buy orders) never exceeds what is left of the order.
 */
function eventsOf(h: History): DomainEvent[] {
  const events: DomainEvent[] = [
    placed(h.uid, {
      owner: h.owner,
      signingScheme: h.scheme,
      order: {
        kind: h.kind,
        sellAmount: h.sellAmount.toString(),
        buyAmount: h.buyAmount.toString(),
        validTo: h.validTo,
      },
    }),
  ];
  let left = h.kind === 'sell' ? h.sellAmount : h.buyAmount;
  h.steps.forEach((s, i) => {
    if (s.t === 'cancel') events.push(cancelled(h.uid, s.source, h.owner));
    else if (s.t === 'presign') events.push(preSignature(h.uid, s.signed, chainAt(s.block, s.log)));
    else if (left > 0n) {
      const amount = s.complete ? left : 1n + (s.pick % left);
      left -= amount;
      const at = chainAt(100 + i, 0);
      events.push(
        h.kind === 'sell'
          ? trade(h.uid, amount + s.fee, s.other, s.fee, at)
          : trade(h.uid, s.other, amount, 0n, at),
      );
    }
  });
  return events;
}

const stateOf = (events: DomainEvent[]): OrderState => {
  const state = foldOrder(events);
  if (state === null) throw new Error('history without placement');
  return state;
};
const statusOf = (events: DomainEvent[], now: number): OrderStatus =>
  orderStatus(statusInputs(stateOf(events)), now);

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

/** What the command handler does with a decision: one API cancellation per cancelled UID. */
function apply(
  histories: DomainEvent[][],
  decision: CancellationDecision,
  signer: Address,
): DomainEvent[][] {
  if (!decision.ok) return histories;
  return histories.map((events) => {
    const uid = stateOf(events).placed.uid;
    return decision.cancel.includes(uid) ? [...events, cancelled(uid, 'api', signer)] : events;
  });
}

describe('order lifecycle properties', () => {
  it('UIDs are deterministic and split back into digest, owner and validTo', () => {
    const separator = domainSeparator(1, SETTLEMENT_CONTRACT);
    fc.assert(
      fc.property(orderData, orderData, address, (order, other, owner) => {
        const digest = orderDigest(order, separator);
        const uid = computeOrderUid(digest, owner, order.validTo);
        expect(
          computeOrderUid(orderDigest({ ...order }, separator), owner, order.validTo),
        ).to.equal(uid);
        expect(splitOrderUid(uid)).to.deep.equal({
          digest: bytesToHex(digest),
          owner,
          validTo: order.validTo,
        });
        if (JSON.stringify(order) !== JSON.stringify(other)) {
          expect(computeOrderUid(orderDigest(other, separator), owner, other.validTo)).to.not.equal(
            uid,
          );
        }
      }),
      RUNS,
    );
  });

  it('status is a pure function of (events, now), and folding never mutates the events', () => {
    fc.assert(
      fc.property(
        history(uidArb),
        history(uidArb),
        fc.integer({ min: NOW - 100, max: NOW + 100 }),
        (h, noise, now) => {
          const events = deepFreeze(eventsOf(h));
          const first = statusOf(events, now);
          statusOf(eventsOf(noise), now);
          expect(statusOf(structuredClone(events), now)).to.equal(first);
          expect(statusOf(events, now)).to.equal(first);
        },
      ),
      RUNS,
    );
  });

  it('once cancelled or fulfilled, an order is never open again, whatever happens later', () => {
    fc.assert(
      fc.property(
        history(uidArb),
        fc.array(step, { maxLength: 6 }),
        fc.integer({ min: NOW - 100, max: NOW + 100 }),
        fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 4 }),
        (h, later, now, delays) => {
          const before = statusOf(eventsOf(h), now);
          fc.pre(before === 'cancelled' || before === 'fulfilled');
          const after = eventsOf({ ...h, steps: [...h.steps, ...later] });
          for (const delay of delays) {
            const status = statusOf(after, now + delay);
            expect(['cancelled', 'fulfilled', 'expired'], status).to.include(status);
            if (before === 'fulfilled') expect(status).to.equal('fulfilled');
          }
        },
      ),
      RUNS,
    );
  });

  it('executed amounts are the sums of the trades and never exceed the order', () => {
    fc.assert(
      fc.property(history(uidArb), (h) => {
        const events = eventsOf(h);
        const state = stateOf(events);
        const trades = events.flatMap((e) => (e.type === 'TradeSettled' ? [e.data] : []));
        const sum = (f: (t: (typeof trades)[number]) => string) =>
          trades.reduce((a, t) => a + BigInt(f(t)), 0n);
        expect(state.executedSellAmount).to.equal(sum((t) => t.sellAmount));
        expect(state.executedBuyAmount).to.equal(sum((t) => t.buyAmount));
        expect(state.executedFeeAmount).to.equal(sum((t) => t.feeAmount));
        if (h.kind === 'sell') {
          expect(state.executedSellAmount - state.executedFeeAmount <= h.sellAmount).to.equal(true);
        } else {
          expect(state.executedBuyAmount <= h.buyAmount).to.equal(true);
        }
      }),
      RUNS,
    );
  });

  it('a cancellation signed by anyone but the owner of every order changes nothing', () => {
    const stranger: Address = '0x3333333333333333333333333333333333333333';
    fc.assert(
      fc.property(
        fc.uniqueArray(history(uidArb), { minLength: 1, maxLength: 4, selector: (h) => h.uid }),
        fc.constantFrom<Address | null>(stranger, OWNER, OTHER, null),
        fc.integer({ min: NOW - 100, max: NOW + 100 }),
        (hs, signer, now) => {
          fc.pre(hs.some((h) => h.owner !== signer));
          const histories = hs.map(eventsOf);
          const decision = decideCancellation({
            orders: histories.map((events) => ({
              uid: stateOf(events).placed.uid,
              state: stateOf(events),
            })),
            signer,
            nowSeconds: now,
          });
          expect(decision.ok).to.equal(false);
          const after = apply(histories, decision, signer ?? stranger);
          expect(after.map((e) => statusOf(e, now))).to.deep.equal(
            histories.map((e) => statusOf(e, now)),
          );
        },
      ),
      RUNS,
    );
  });

  it('a cancellation is all or nothing: it cancels every listed order or none', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(cancellableLeaning, { minLength: 1, maxLength: 4, selector: (h) => h.uid }),
        fc.oneof({ weight: 4, arbitrary: fc.constant([]) }, fc.array(uidArb, { maxLength: 2 })),
        fc.oneof(
          { weight: 4, arbitrary: fc.constant<Address | null>(OWNER) },
          fc.constantFrom<Address | null>(OTHER, null),
        ),
        fc.integer({ min: NOW - 100, max: NOW + 100 }),
        (hs, unknownUids, signer, now) => {
          const histories = hs.map(eventsOf);
          const known = new Map(histories.map((e) => [stateOf(e).placed.uid, stateOf(e)]));
          const orders = [...hs.map((h) => h.uid), ...unknownUids].map((uid) => ({
            uid,
            state: known.get(uid) ?? null,
          }));
          const decision = decideCancellation({ orders, signer, nowSeconds: now });

          const cancellable = orders.every(
            ({ state }) =>
              state !== null &&
              orderStatus(statusInputs(state), now) === 'open' &&
              ['eip712', 'ethsign'].includes(state.placed.signingScheme) &&
              state.placed.owner === signer,
          );
          expect(decision.ok).to.equal(cancellable && signer !== null);
          const after = apply(histories, decision, signer ?? OWNER).map((e) => statusOf(e, now));
          if (decision.ok) {
            expect(new Set(decision.cancel)).to.deep.equal(new Set(orders.map((o) => o.uid)));
            expect(after.every((s) => s === 'cancelled')).to.equal(true);
          } else {
            expect(after).to.deep.equal(histories.map((e) => statusOf(e, now)));
          }
        },
      ),
      RUNS,
    );
  });
});
