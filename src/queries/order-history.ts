/**
 * An order's history (GET /{network}/api/v1/orders/{uid}/events): every ledger event that
 * concerns the order, in ledger order. Its own streams (the API's and the chain's facts about
 * it) are read whole; of the auctions' streams, those of the auctions that held the order, left
 * it out, had a solution trading it, or first saw its `validTo` pass (its expiry, in the ledger's
 * own clock). An auction's event is shown as far as it concerns the order: the whole cut of
 * 10,000 orders is the competition endpoint's.
 *
 * The auctions read model says which auctions held the order; the ledger says what each did.
 * Hex arguments are expected in canonical lowercase.
 */
import type { Knex } from 'knex';
import {
  streams,
  type Address,
  type AuctionClosedV5,
  EVENT_VERSIONS,
  type DomainEvent,
  type OrderUid,
  type RankedSolution,
} from '../domain/events.js';
import { upcast } from '../domain/upcast.js';
import { table } from './schema.js';

/** A recorded event as the ledger port gives it (structurally: queries import no ledger). */
export interface StoredEvent {
  stream: string;
  revision: bigint;
  position: string;
  type: string;
  version: number;
  data: unknown;
  recordedAt: Date;
}

/** What the history reads of the ledger. */
export interface LedgerStreams {
  readStream(stream: string): Promise<StoredEvent[]>;
  comparePositions(a: string, b: string): number;
}

/** One event of an order's history, its payload upcast to the type's current version. */
export interface OrderHistoryEntry {
  /** The event's all-stream position: opaque, in the order of the entries. */
  position: string;
  stream: string;
  revision: number;
  type: DomainEvent['type'];
  version: number;
  recordedAt: string;
  /** The payload; an auction's own events as far as they concern the order (AuctionExcerpt). */
  data: unknown;
}

/** An `AuctionClosed` as it concerns one order. */
export interface AuctionExcerpt {
  network: string;
  id: number;
  block: number;
  cutAt: string;
  deadline: string;
  /** Whether the auction held the order, and what earlier batches had filled of it by the cut. */
  held: boolean;
  executed: string | null;
  /** Why the auction left the order out; null when it did not. */
  filtered: string | null;
  /** The first auction cut at or after the order's `validTo`, the order being expired. */
  expiry: boolean;
  /** The solutions that traded the order, best first, with that trade and the pair's prices. */
  solutions: (Omit<
    RankedSolution,
    'orders' | 'preInteractions' | 'interactions' | 'postInteractions'
  > & {
    trade: RankedSolution['orders'][number];
  })[];
}

/** What the orders read model knows of the order, bounding where its auctions can be. */
export interface HistoryBounds {
  creationDate: string;
  /** The trader's deadline (an eth-flow order's `userValidTo`), Unix seconds. */
  validTo: number;
  expired: boolean;
}

export interface OrderHistoryQueries {
  /** The order's events in ledger order; none when the ledger holds none of its own. */
  history(network: string, uid: OrderUid, bounds: HistoryBounds): Promise<OrderHistoryEntry[]>;
}

/** The most recent auctions that held an order which the history shows. */
export const MAX_HISTORY_AUCTIONS = 500;
/** Auction streams read at once. */
const READ_CONCURRENCY = 8;

interface InvolvementRow {
  id: string;
  held: boolean;
  executed: string | null;
  filtered: string | null;
}

export function createOrderHistoryQueries(
  db: Knex,
  ledger: LedgerStreams,
  schema = 'read',
): OrderHistoryQueries {
  const auctions = table(schema, 'auctions');
  const solutionOrders = table(schema, 'competition_orders');
  // Bounded by the order's life: an auction's deadline follows its cut, which follows the
  // order's creation, and no auction after validTo holds it (the deadline index serves).
  const involvementSql = `SELECT id,
      array_position(order_uids, :uid) IS NOT NULL AS held,
      order_executed[array_position(order_uids, :uid)]::text AS executed,
      filtered_reasons[array_position(filtered_uids, :uid)] AS filtered
    FROM ${auctions}
    WHERE network = :network AND deadline >= :created AND cut_at <= to_timestamp(:validTo)
      AND (:uid = ANY(order_uids) OR :uid = ANY(filtered_uids))
    UNION
    SELECT DISTINCT auction_id AS id, false, NULL, NULL FROM ${solutionOrders}
    WHERE network = :network AND uid = :uid
    ORDER BY id DESC LIMIT ${MAX_HISTORY_AUCTIONS}`;
  const expirySql = `SELECT id FROM ${auctions}
    WHERE network = :network AND deadline >= to_timestamp(:validTo) AND cut_at >= to_timestamp(:validTo)
    ORDER BY id LIMIT 1`;

  return {
    async history(network, uid, bounds) {
      const own = (
        await Promise.all([
          ledger.readStream(streams.order(network, uid)),
          ledger.readStream(streams.orderOnChain(network, uid)),
        ])
      ).flat();
      if (own.length === 0) return [];

      const params = { network, uid, created: bounds.creationDate, validTo: bounds.validTo };
      const { rows } = await db.raw<{ rows: InvolvementRow[] }>(involvementSql, params);
      const involved = new Map<number, InvolvementRow>();
      // The read-model row that held the order says more than the solutions' one: it wins.
      for (const row of rows)
        if (!involved.has(Number(row.id)) || row.held) involved.set(Number(row.id), row);
      let expiryId: number | null = null;
      if (bounds.expired) {
        const found = await db.raw<{ rows: { id: string }[] }>(expirySql, params);
        expiryId = found.rows[0] ? Number(found.rows[0].id) : null;
      }
      const auctionIds = [
        ...new Set([...involved.keys(), ...(expiryId === null ? [] : [expiryId])]),
      ];
      const auctionEvents: StoredEvent[][] = [];
      for (let i = 0; i < auctionIds.length; i += READ_CONCURRENCY) {
        const chunk = auctionIds.slice(i, i + READ_CONCURRENCY);
        auctionEvents.push(
          ...(await Promise.all(
            chunk.map((id) => ledger.readStream(streams.auction(network, id))),
          )),
        );
      }

      const entries = own.map((stored) =>
        entry(stored, upcast(stored.type, stored.version, stored.data)),
      );
      for (const events of auctionEvents) {
        entries.push(
          ...auctionEntries(events, uid, (id) => ({
            involvement: involved.get(id) ?? null,
            expiry: id === expiryId,
          })),
        );
      }
      return entries.sort((a, b) => ledger.comparePositions(a.position, b.position));
    },
  };
}

function entry(
  stored: StoredEvent,
  event: DomainEvent,
  data: unknown = event.data,
): OrderHistoryEntry {
  return {
    position: stored.position,
    stream: stored.stream,
    revision: Number(stored.revision),
    type: event.type,
    version: EVENT_VERSIONS[event.type],
    recordedAt: stored.recordedAt.toISOString(),
    data,
  };
}

interface AuctionInvolvement {
  involvement: InvolvementRow | null;
  expiry: boolean;
}

/**
 * An auction stream's events as they concern the order: its `AuctionClosed` (cut down to the
 * order), and the settlements of the winners that traded it, submitted or failed.
 */
function auctionEntries(
  events: readonly StoredEvent[],
  uid: OrderUid,
  involvementOf: (auctionId: number) => AuctionInvolvement,
): OrderHistoryEntry[] {
  const out: OrderHistoryEntry[] = [];
  const winningRanks = new Set<number>();
  for (const stored of events) {
    const event = upcast(stored.type, stored.version, stored.data);
    if (event.type === 'AuctionClosed') {
      const excerpt = excerptOf(event.data, uid, involvementOf(event.data.id));
      for (const s of excerpt.solutions) if (s.isWinner) winningRanks.add(s.rank);
      if (excerpt.held || excerpt.filtered || excerpt.expiry || excerpt.solutions.length > 0) {
        out.push(entry(stored, event, excerpt));
      }
    } else if (
      (event.type === 'SettlementSubmitted' || event.type === 'SettlementFailed') &&
      winningRanks.has(event.data.rank)
    ) {
      out.push(entry(stored, event));
    }
  }
  return out;
}

function excerptOf(
  auction: AuctionClosedV5,
  uid: OrderUid,
  { involvement, expiry }: AuctionInvolvement,
): AuctionExcerpt {
  const solutions: AuctionExcerpt['solutions'] = [];
  for (const solution of auction.solutions) {
    const trade = solution.orders.find((o) => o.uid === uid);
    if (!trade) continue;
    const { orders, preInteractions, interactions, postInteractions, clearingPrices, ...ranked } =
      solution;
    const pair: Record<Address, string> = {};
    for (const token of [trade.sellToken, trade.buyToken]) {
      const price = clearingPrices[token];
      if (price !== undefined) pair[token] = price;
    }
    solutions.push({ ...ranked, clearingPrices: pair, trade });
  }
  return {
    network: auction.network,
    id: auction.id,
    block: auction.block,
    cutAt: auction.cutAt,
    deadline: auction.deadline,
    held: involvement?.held ?? false,
    executed: involvement?.executed ?? null,
    filtered: involvement?.filtered ?? null,
    expiry,
    solutions,
  };
}
