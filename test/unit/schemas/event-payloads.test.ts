import { expect } from 'chai';
import fc from 'fast-check';
import { EVENT_VERSIONS, type EventType, type OrderPlacedV1 } from '../../../src/domain/events.js';
import { EVENT_SCHEMA_VERSIONS, eventPayloadProblem } from '../../../schemas/event-payloads.js';
import {
  OWNER,
  cancelled,
  chainAt,
  orderData,
  placed,
  preSignature,
  reverted,
  trade,
} from '../../property/arbitraries.js';

const UID = `0x${'01'.repeat(56)}` as const;
const problem = (event: { type: string; data: unknown }, version = 1) =>
  eventPayloadProblem(event.type, version, event.data);

describe('event payload schemas (schemas/events/)', () => {
  it('has one schema for each version of each event type, and no other', () => {
    const expected = new Map(
      (Object.keys(EVENT_VERSIONS) as EventType[]).map((type) => [
        type,
        Array.from({ length: EVENT_VERSIONS[type] }, (_, i) => i + 1),
      ]),
    );
    expect(new Map([...EVENT_SCHEMA_VERSIONS].sort())).to.deep.equal(new Map([...expected].sort()));
  });

  it('accepts the events the domain tests are built on', () => {
    const events = [
      placed(UID),
      placed(UID, { signingScheme: 'presign', order: { receiver: OWNER } }),
      trade(UID, 10n, 20n, 1n),
      cancelled(UID, 'api'),
      cancelled(UID, 'chain'),
      preSignature(UID, true, chainAt(3, 1)),
      reverted(trade(UID, 10n, 20n)),
      reverted(cancelled(UID, 'chain')),
    ];
    for (const event of events) expect(problem(event), event.type).to.equal(null);
  });

  it('accepts every order an OrderPlaced can carry (property)', () => {
    fc.assert(
      fc.property(orderData, (order) => {
        expect(problem(placed(UID, { order }))).to.equal(null);
      }),
    );
  });

  it('refuses what the ledger must never keep, naming the field', () => {
    const order = placed(UID).data as OrderPlacedV1;
    const cases: [string, unknown, RegExp][] = [
      ['a missing field', { ...order, creationDate: undefined }, /^\/creationDate is required$/],
      ['an unknown field', { ...order, extra: 1 }, /must NOT have additional properties/],
      [
        'a mixed-case address',
        { ...order, owner: `0x${'Ab'.repeat(20)}` },
        /^\/owner must match pattern/,
      ],
      [
        'an amount in hex',
        { ...order, order: { ...order.order, sellAmount: '0x10' } },
        /^\/order\/sellAmount must match pattern/,
      ],
      [
        'an amount past uint256 range',
        { ...order, order: { ...order.order, buyAmount: '1'.padEnd(79, '0') } },
        /^\/order\/buyAmount must match pattern/,
      ],
      [
        'a leading zero',
        { ...order, order: { ...order.order, feeAmount: '01' } },
        /^\/order\/feeAmount must match pattern/,
      ],
      [
        'a time without its zone',
        { ...order, creationDate: '2023-11-14T00:00:00' },
        /^\/creationDate must match/,
      ],
      [
        'an unknown order field',
        { ...order, order: { ...order.order, hooks: [] } },
        /^\/order must NOT have unevaluated properties/,
      ],
    ];
    for (const [what, data, message] of cases) {
      expect(eventPayloadProblem('OrderPlaced', 1, data), what).to.match(message);
    }
    const { chain: _, ...withoutChain } = cancelled(UID, 'chain').data as { chain: unknown };
    expect(eventPayloadProblem('OrderCancelled', 1, withoutChain)).to.equal('/chain is required');
  });

  it('refuses an AuctionClosed v3 whose orders are copied whole, as v2 had them', () => {
    const auction = {
      network: 'mainnet',
      id: 1,
      block: 2,
      cutAt: '2025-01-01T00:00:00.000Z',
      deadline: '2025-01-01T00:00:30.000Z',
      deadlineBlock: 3,
      orders: [{ uid: UID, executed: '0' }],
      prices: {},
      filtered: [],
      solutions: [],
    };
    expect(eventPayloadProblem('AuctionClosed', 3, auction)).to.equal(null);
    const copied = { ...auction, orders: [{ uid: UID, executed: '0', owner: OWNER }] };
    expect(eventPayloadProblem('AuctionClosed', 3, copied)).to.match(
      /^\/orders\/0 must NOT have additional properties/,
    );
  });

  it('knows no type or version it has no schema for', () => {
    expect(eventPayloadProblem('OrderExploded', 1, {})).to.equal('no schema for OrderExploded v1');
    expect(eventPayloadProblem('OrderPlaced', 2, placed(UID).data)).to.equal(
      'no schema for OrderPlaced v2',
    );
  });
});
