import { expect } from 'chai';
import { EVENT_VERSIONS, type EventType } from '../../../src/domain/events.js';
import { UPCASTERS, upcast } from '../../../src/domain/upcast.js';
import { eventPayloadProblem } from '../../../schemas/event-payloads.js';
import { OWNER, cancelled, placed } from '../../property/arbitraries.js';

const UID = `0x${'01'.repeat(56)}` as const;

/** v5: an auction before it records its cut whole. */
const WHOLE = { base: null, left: [], unpriced: [], unfiltered: [] };

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

  describe('subscriptions', () => {
    const added = {
      id: '6f1c2a7e-0d3b-4c55-9a8e-1b2c3d4e5f60',
      account: OWNER,
      channel: { kind: 'email', address: 'alice@example.com' },
      addedAt: '2025-01-01T00:00:00.000Z',
      authorisedBy: 'signature',
    };
    const removed = {
      id: added.id,
      account: OWNER,
      removedAt: '2025-01-02T00:00:00.000Z',
      authorisedBy: 'signature',
    };

    it('lifts a v1 subscription to one whose destination never proved anything', () => {
      for (const [type, data] of [
        ['SubscriptionAdded', added],
        ['SubscriptionRemoved', removed],
      ] as const) {
        expect(eventPayloadProblem(type, 1, data), type).to.equal(null);
        const current = upcast(type, 1, structuredClone(data)).data;
        expect(eventPayloadProblem(type, EVENT_VERSIONS[type], current), type).to.equal(null);
      }
      expect(upcast('SubscriptionAdded', 1, structuredClone(added)).data).to.deep.equal({
        ...added,
        signedDigest: null,
        verification: { method: 'legacy' },
      });
      expect(upcast('SubscriptionRemoved', 1, structuredClone(removed)).data).to.deep.equal({
        ...removed,
        signedDigest: null,
      });
    });
  });

  describe('AuctionClosed', () => {
    const SELL = `0x${'0a'.repeat(20)}`;
    const BUY = `0x${'0b'.repeat(20)}`;
    const OTHER = `0x${'02'.repeat(56)}`;
    /** An order as a v2 auction copied it, whole. */
    const copy = (uid: string, executed: string) => ({
      uid,
      owner: OWNER,
      sellToken: SELL,
      buyToken: BUY,
      receiver: null,
      sellAmount: '100',
      buyAmount: '200',
      validTo: 1_900_000_000,
      appData: `0x${'00'.repeat(32)}`,
      feeAmount: '0',
      kind: 'sell',
      partiallyFillable: true,
      sellTokenBalance: 'erc20',
      buyTokenBalance: 'erc20',
      created: 1_735_689_600,
      executed,
      preInteractions: [],
      postInteractions: [],
      class: 'limit',
      signingScheme: 'eip712',
      signature: `0x${'11'.repeat(65)}`,
      protocolFees: [],
    });
    /** v2's orders as v3 names them. */
    const named = [
      { uid: UID, executed: '10' },
      { uid: OTHER, executed: '0' },
    ];
    const trade = { uid: UID, executedAmount: '40', sellAmount: '40', buyAmount: '80' };
    const solution = {
      solver: 'builtin',
      solverAddress: OWNER,
      score: '5',
      rank: 1,
      isWinner: true,
      filteredOut: false,
      referenceScore: '0',
      clearingPrices: { [SELL]: '2', [BUY]: '1' },
      orders: [trade],
      interactions: [],
    };
    const v2 = {
      network: 'devnet',
      id: 7,
      block: 70,
      cutAt: '2025-01-01T00:00:00.000Z',
      deadline: '2025-01-01T00:00:30.000Z',
      deadlineBlock: 75,
      orders: [copy(UID, '10'), copy(OTHER, '0')],
      prices: { [SELL]: '1', [BUY]: '2' },
      filtered: [{ uid: `0x${'03'.repeat(56)}`, reason: 'InsufficientBalance' }],
      solutions: [solution],
    };

    it('names the orders a v2 auction copied, and keeps the tokens of the orders its solutions trade', () => {
      expect(upcast('AuctionClosed', 2, structuredClone(v2))).to.deep.equal({
        type: 'AuctionClosed',
        data: {
          ...v2,
          ...WHOLE,
          orders: named,
          solutions: [
            {
              ...solution,
              orders: [{ ...trade, sellToken: SELL, buyToken: BUY, fee: '0' }],
              // v4: no solver gave the solution an id, took a fee, or made calls around the trades.
              solutionId: null,
              preInteractions: [],
              postInteractions: [],
            },
          ],
        },
      });
    });

    it('lifts a v1 auction (never solved) through v2 to the current version', () => {
      const { solutions: _, deadline: __, deadlineBlock: ___, ...v1 } = v2;
      expect(upcast('AuctionClosed', 1, { ...structuredClone(v1), winners: [] })).to.deep.equal({
        type: 'AuctionClosed',
        data: {
          ...v1,
          ...WHOLE,
          orders: named,
          solutions: [],
          deadline: v1.cutAt,
          deadlineBlock: v1.block,
        },
      });
    });

    it('takes payloads valid at every older version to payloads valid at the current version', () => {
      const { solutions: _, deadline: __, deadlineBlock: ___, ...v1 } = v2;
      const stored: [number, object][] = [
        [1, { ...v1, solutions: [], winners: [] }],
        [2, v2],
        [3, UPCASTERS.AuctionClosed[1]!(structuredClone(v2)) as object],
        [
          4,
          UPCASTERS.AuctionClosed[2]!(UPCASTERS.AuctionClosed[1]!(structuredClone(v2))) as object,
        ],
      ];
      for (const [version, data] of stored) {
        expect(eventPayloadProblem('AuctionClosed', version, data), `v${version}`).to.equal(null);
        const current = upcast('AuctionClosed', version, structuredClone(data)).data;
        const problem = eventPayloadProblem('AuctionClosed', EVENT_VERSIONS.AuctionClosed, current);
        expect(problem, `v${version} upcast`).to.equal(null);
      }
    });

    it('throws on a v2 solution trading an order its auction did not copy', () => {
      const broken = { ...structuredClone(v2), orders: [copy(OTHER, '0')] };
      expect(() => upcast('AuctionClosed', 2, broken)).to.throw(/a solution trades 0x0101/);
    });
  });
});
