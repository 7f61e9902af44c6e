/**
 * Reduces a batch of auction events to rows. Every write the batch makes has the effect of its
 * events applied one by one, at any batch boundary and in any interleaving of auctions (whose
 * streams are appended independently), and applying a batch twice changes nothing:
 * - an auction, its solutions and their orders are inserted once: the first event with a key
 *   wins, in the batch as in the table (an auction's stream holds one `AuctionClosed`);
 * - a winner's settlement is one row that its events overwrite or patch in stream order (see
 *   `AttemptRow`);
 * - a token's latest price belongs to the highest auction id that priced it, whatever the order
 *   the auctions arrive in;
 * - the orders auctions have taken in come from the stored auction rows (statements.ts);
 * - an auction recording only the changes since its base is stored whole: its base's cut (from
 *   this batch, or stored before it, `bases`) with the changes applied.
 */
import { applyChanges, type CutRecord } from '../../src/domain/auction-record.js';
import type { AuctionClosedV5 } from '../../src/domain/events.js';
import type { EventOf } from '../events.js';

export type AuctionEvent = EventOf<'AuctionClosed' | 'SettlementSubmitted' | 'SettlementFailed'>;

export const AUCTION_EVENT_TYPES: ReadonlySet<AuctionEvent['type']> = new Set([
  'AuctionClosed',
  'SettlementSubmitted',
  'SettlementFailed',
]);

export interface AuctionRow {
  network: string;
  id: number;
  block: number;
  cut_at: string;
  deadline: string;
  deadline_block: number;
  auction: AuctionClosedV5;
}

export interface SolutionRow {
  network: string;
  auction_id: number;
  rank: number;
  solver: string;
  solver_address: string;
  score: string;
  is_winner: boolean;
  filtered_out: boolean;
  reference_score: string | null;
  clearing_prices: Record<string, string>;
}

export interface SolutionOrderRow {
  network: string;
  auction_id: number;
  rank: number;
  uid: string;
  position: number;
  executed_amount: string;
  /**
   * What the contract will count the order as filled once this solution settles: what earlier
   * batches filled (at the cut) plus this execution.
   */
  filled_after: string;
  sell_amount: string;
  buy_amount: string;
  sell_token: string;
  buy_token: string;
}

/** An auction whose orders (taken in or filtered out) join the orders auctions have seen. */
export interface AuctionKey {
  network: string;
  id: number;
}

export interface TokenPriceRow {
  network: string;
  token: string;
  auction_id: number;
  price: string;
}

/**
 * A winning solution's settlement row after the batch. `SettlementSubmitted` is a new attempt:
 * it sets the whole row (`replace`). `SettlementFailed` marks the attempt failed and keeps the
 * transaction hash it had when the failure names none (`fail`). Folding a key's events in
 * stream order leaves one of the two, which composes with the stored row exactly as the events
 * one by one would.
 */
export interface AttemptRow {
  network: string;
  auction_id: number;
  rank: number;
  tx_hash: string | null;
  submitted_at: string | null;
  failed_at: string | null;
  failure_reason: string | null;
}

export interface AuctionsBatch {
  auctions: AuctionRow[];
  solutions: SolutionRow[];
  solutionOrders: SolutionOrderRow[];
  tokenPrices: TokenPriceRow[];
  replaceAttempts: AttemptRow[];
  failAttempts: AttemptRow[];
}

/** First wins: the row a key's first event makes, as `ON CONFLICT DO NOTHING` keeps it. */
class FirstWins<Row> {
  private readonly rows = new Map<string, Row>();

  add(key: string, row: Row): void {
    if (!this.rows.has(key)) this.rows.set(key, row);
  }

  has(key: string): boolean {
    return this.rows.has(key);
  }

  values(): Row[] {
    return [...this.rows.values()];
  }
}

function addSolutions(
  a: AuctionClosedV5,
  solutions: FirstWins<SolutionRow>,
  orders: FirstWins<SolutionOrderRow>,
): void {
  if (a.solutions.length === 0) return;
  const auctionOrders = new Map(a.orders.map((o) => [o.uid, o]));
  for (const s of a.solutions) {
    const key = `${a.network}/${a.id}/${s.rank}`;
    solutions.add(key, {
      network: a.network,
      auction_id: a.id,
      rank: s.rank,
      solver: s.solver,
      solver_address: s.solverAddress,
      score: s.score,
      is_winner: s.isWinner,
      filtered_out: s.filteredOut,
      reference_score: s.referenceScore,
      clearing_prices: s.clearingPrices,
    });
    s.orders.forEach((o, position) => {
      const order = auctionOrders.get(o.uid);
      orders.add(`${key}/${o.uid}`, {
        network: a.network,
        auction_id: a.id,
        rank: s.rank,
        uid: o.uid,
        position,
        executed_amount: o.executedAmount,
        filled_after: (BigInt(order?.executed ?? '0') + BigInt(o.executedAmount)).toString(),
        sell_amount: o.sellAmount,
        buy_amount: o.buyAmount,
        sell_token: o.sellToken,
        buy_token: o.buyToken,
      });
    });
  }
}

/** `network/id` of an auction, as `bases` keys it. */
export const auctionKey = (network: string, id: number): string => `${network}/${id}`;

/** The stored auctions the batch's auctions record their changes against, and are not in it. */
export function basesNeeded(events: readonly AuctionEvent[]): AuctionKey[] {
  const inBatch = new Set<string>();
  const needed = new Map<string, AuctionKey>();
  for (const e of events) {
    if (e.type !== 'AuctionClosed') continue;
    const { network, id, base } = e.data;
    if (base !== null && !inBatch.has(auctionKey(network, base)))
      needed.set(auctionKey(network, base), { network, id: base });
    inBatch.add(auctionKey(network, id));
  }
  return [...needed.values()];
}

/**
 * `bases`: the whole cuts of `basesNeeded(events)`, by `auctionKey`. Throws when one is missing:
 * a base is always recorded, and so projected, before an auction that names it.
 */
export function reduceAuctionEvents(
  events: readonly AuctionEvent[],
  bases: ReadonlyMap<string, CutRecord> = new Map(),
): AuctionsBatch {
  const cuts = new Map(bases);
  const auctions = new FirstWins<AuctionRow>();
  const solutions = new FirstWins<SolutionRow>();
  const solutionOrders = new FirstWins<SolutionOrderRow>();
  const prices = new Map<string, TokenPriceRow>();
  const attempts = new Map<string, { row: AttemptRow; replace: boolean }>();

  for (const e of events) {
    switch (e.type) {
      case 'AuctionClosed': {
        const recorded = e.data;
        const base =
          recorded.base === null ? null : cuts.get(auctionKey(recorded.network, recorded.base));
        const cut = applyChanges(base ?? null, recorded);
        cuts.set(auctionKey(recorded.network, recorded.id), cut);
        const a: AuctionClosedV5 = {
          ...recorded,
          ...wholeCutOf(cut),
        };
        auctions.add(`${a.network}/${a.id}`, {
          network: a.network,
          id: a.id,
          block: a.block,
          cut_at: a.cutAt,
          deadline: a.deadline,
          deadline_block: a.deadlineBlock,
          auction: a,
        });
        addSolutions(a, solutions, solutionOrders);
        for (const [token, price] of Object.entries(a.prices)) {
          const key = `${a.network}/${token}`;
          const known = prices.get(key);
          if (!known || known.auction_id < a.id) {
            prices.set(key, { network: a.network, token, auction_id: a.id, price });
          }
        }
        break;
      }
      case 'SettlementSubmitted': {
        const d = e.data;
        attempts.set(`${d.network}/${d.auctionId}/${d.rank}`, {
          replace: true,
          row: {
            network: d.network,
            auction_id: d.auctionId,
            rank: d.rank,
            tx_hash: d.txHash,
            submitted_at: d.submittedAt,
            failed_at: null,
            failure_reason: null,
          },
        });
        break;
      }
      case 'SettlementFailed': {
        const d = e.data;
        const key = `${d.network}/${d.auctionId}/${d.rank}`;
        const before = attempts.get(key);
        attempts.set(key, {
          replace: before?.replace ?? false,
          row: {
            network: d.network,
            auction_id: d.auctionId,
            rank: d.rank,
            tx_hash: d.txHash ?? before?.row.tx_hash ?? null,
            submitted_at: before?.row.submitted_at ?? null,
            failed_at: d.failedAt,
            failure_reason: d.reason,
          },
        });
        break;
      }
    }
  }
  const all = [...attempts.values()];
  return {
    auctions: auctions.values(),
    solutions: solutions.values(),
    solutionOrders: solutionOrders.values(),
    tokenPrices: [...prices.values()],
    replaceAttempts: all.filter((a) => a.replace).map((a) => a.row),
    failAttempts: all.filter((a) => !a.replace).map((a) => a.row),
  };
}

/** An auction's fields for its whole cut. */
function wholeCutOf(cut: CutRecord) {
  return {
    base: null,
    orders: [...cut.orders],
    left: [],
    prices: { ...cut.prices },
    unpriced: [],
    filtered: [...cut.filtered],
    unfiltered: [],
  };
}
