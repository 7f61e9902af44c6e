/**
 * Upcasting: stored events are never rewritten, so an event read at an older schema version is
 * lifted to the current one here (DESIGN §4).
 *
 * To introduce version N+1 of a type: bump `EVENT_VERSIONS[type]` in events.ts, make the payload
 * type the new shape, and append one function to that type's list below taking a version-N
 * payload to version N+1. Reading then chains every step from the stored version.
 */
import { EVENT_VERSIONS, type DomainEvent, type EventType } from './events.js';

type Step = (data: unknown) => unknown;

/** What the v2 → v3 step reads of a v2 `AuctionClosed`. */
interface AuctionClosedV2Shape {
  id: number;
  orders: { uid: string; executed: string; sellToken: string; buyToken: string }[];
  solutions: { orders: { uid: string }[] }[];
}

/** `UPCASTERS[type][i]` lifts version i+1 to version i+2. */
export const UPCASTERS: { readonly [T in EventType]: readonly Step[] } = {
  OrderPlaced: [],
  OrderCancelled: [],
  TradeSettled: [],
  PreSignatureSet: [],
  SettlementObserved: [],
  // v1 → v2: more kinds of fact may be reverted; a v1 revert reads the same.
  ChainFactReverted: [(data) => data],
  EthFlowOrderPlaced: [],
  EthFlowOrderRefunded: [],
  QuoteCreated: [],
  // v1 → v2: solutions gained their solver, flags and trades, `winners` became `isWinner`, and
  // auctions a deadline. v1 auctions were never solved: no solutions, nothing in flight.
  AuctionClosed: [
    (data) => {
      const { winners: _, ...v1 } = data as { winners: unknown; cutAt: string; block: number };
      return { ...v1, solutions: [], deadline: v1.cutAt, deadlineBlock: v1.block };
    },
    // v2 → v3: the auction names its orders (UID and what was executed by the cut) instead of
    // copying them; a solution's traded orders keep their tokens, which they took from the copies.
    (data) => {
      const v2 = data as AuctionClosedV2Shape;
      const copies = new Map(v2.orders.map((order) => [order.uid, order]));
      const tokensOf = (uid: string) => {
        const order = copies.get(uid);
        // The competition only ranks solutions trading the auction's orders.
        if (!order)
          throw new Error(`AuctionClosed v2 ${v2.id}: a solution trades ${uid}, not in it`);
        return { sellToken: order.sellToken, buyToken: order.buyToken };
      };
      return {
        ...v2,
        orders: v2.orders.map(({ uid, executed }) => ({ uid, executed })),
        solutions: v2.solutions.map((solution) => ({
          ...solution,
          orders: solution.orders.map((trade) => ({ ...trade, ...tokensOf(trade.uid) })),
        })),
      };
    },
    // v3 → v4: solutions gained their solver's id, a fee per trade and calls before and after
    // the transfers. v3 solutions took no fee, made calls only between the transfers, and had
    // no id a solver gave them.
    (data) => {
      const v3 = data as { solutions: { orders: object[] }[] };
      return {
        ...v3,
        solutions: v3.solutions.map((solution) => ({
          ...solution,
          solutionId: null,
          orders: solution.orders.map((order) => ({ ...order, fee: '0' })),
          preInteractions: [],
          postInteractions: [],
        })),
      };
    },
    // v4 → v5: an auction may record only the changes since a base; v4 ones were whole.
    (data) => ({ ...(data as object), base: null, left: [], unpriced: [], unfiltered: [] }),
  ],
  SettlementSubmitted: [],
  SettlementFailed: [],
  // v1 → v2: requests record the digest the account signed (null: none is known), and
  // destinations their verification; one added before verifications never had one.
  SubscriptionAdded: [
    (data) => ({ ...(data as object), signedDigest: null, verification: { method: 'legacy' } }),
  ],
  SubscriptionVerified: [],
  SubscriptionRemoved: [(data) => ({ ...(data as object), signedDigest: null })],
  DeploymentIdentified: [],
  AppDataRegistered: [],
};

function isEventType(type: string): type is EventType {
  return Object.hasOwn(EVENT_VERSIONS, type);
}

/**
 * The current-version event for a stored (type, version, data). Throws on an unknown type or a
 * version this code does not know: silently misreading the ledger would corrupt every read
 * model built from it. Payload validation is the reader's JSON Schema's job, not this one's.
 */
export function upcast(type: string, version: number, data: unknown): DomainEvent {
  if (!isEventType(type)) throw new Error(`unknown event type ${JSON.stringify(type)}`);
  const current = EVENT_VERSIONS[type];
  if (!Number.isInteger(version) || version < 1 || version > current) {
    throw new Error(`${type} has no schema version ${version} (current is ${current})`);
  }
  const steps = UPCASTERS[type];
  let payload = data;
  for (let v = version; v < current; v++) {
    const step = steps[v - 1];
    if (step === undefined) throw new Error(`no upcaster from ${type} v${v} to v${v + 1}`);
    payload = step(payload);
  }
  return { type, data: payload } as DomainEvent;
}
