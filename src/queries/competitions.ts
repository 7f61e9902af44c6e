/**
 * The solver competition's read side: GET /api/v2/solver_competition/* (reference §1.2
 * `SolverCompetitionResponse`, §6), an order's competition status (./order-status.ts), a user's
 * total surplus (GET /users/{address}/total_surplus), and the orders in flight that the
 * autopilot leaves out of its next auction. Hex arguments are expected in canonical lowercase.
 */
import type { Knex } from 'knex';
import type pg from 'pg';
import type { Address, Hex, OrderUid } from '../domain/events.js';
import { createOrderStatusQuery, type CompetitionOrderStatus } from './order-status.js';
import { preparedRows } from './prepared.js';
import { table } from './schema.js';

export type { CompetitionOrderStatus, CompetitionStatusType } from './order-status.js';

/** One traded order of a solution (`sellToken`/`buyToken` are in the code, not the spec: §9.6). */
export interface ApiCompetitionOrder {
  id: OrderUid;
  sellAmount: string;
  buyAmount: string;
  sellToken?: Address;
  buyToken?: Address;
}

/** The API's `SolverSettlement`. */
export interface ApiSolverSettlement {
  solverAddress: Address;
  score: string;
  /** 1 is the best. */
  ranking: number;
  clearingPrices: Record<Address, string>;
  orders: ApiCompetitionOrder[];
  isWinner: boolean;
  filteredOut: boolean;
  /** The settlement transaction sent for this solution, unless it failed without landing. */
  txHash: Hex | null;
  referenceScore: string | null;
}

/** The API's `SolverCompetitionResponse`. */
export interface ApiSolverCompetition {
  auctionId: number;
  auctionStartBlock: number;
  auctionDeadlineBlock: number;
  /** The winners' settlement transactions the chain indexer has seen land. */
  transactionHashes: Hex[];
  /** CIP-67, per winning solver. */
  referenceScores: Record<Address, string>;
  auction: { orders: OrderUid[]; prices: Record<Address, string> };
  /** Worst first, the best last (by `ranking`, descending). */
  solutions: ApiSolverSettlement[];
}

/** Which competition: by auction id, by a settlement transaction it sent, or the latest. */
export type CompetitionSelector = { auctionId: number } | { txHash: Hex } | 'latest';

export interface CompetitionQueries {
  /** Null when there is no such competition. */
  competition(network: string, selector: CompetitionSelector): Promise<ApiSolverCompetition | null>;
  /** Null for an order nobody knows (see ./order-status.ts for the rules). */
  orderStatus(network: string, uid: OrderUid, now: Date): Promise<CompetitionOrderStatus | null>;
  /** The owner's surplus over all its trades, in native-token atoms, as a decimal string. */
  totalSurplus(network: string, owner: Address): Promise<string>;
  /**
   * The orders of winning solutions whose settlement may still land: their auction's deadline
   * is after `now` and their settlement has not failed (or was not sent yet). Each with what
   * the order counts as filled once it lands; until the orders read model shows that much, the
   * order is in flight. (Asking the trades read model whether the transaction was seen would
   * leave a gap: it may see the settlement before the orders read model applies the fill.)
   * Sorted by uid, one entry per order (the largest).
   */
  inFlight(network: string, now: Date): Promise<InFlightOrder[]>;
  /**
   * Whether some solution of the network's latest `auctions` auctions (by id) trades the order:
   * the reference's "proposed trade executions of the last N competitions" (§4.1 step 13).
   */
  proposedInRecentAuctions(network: string, uid: OrderUid, auctions: number): Promise<boolean>;
}

export interface InFlightOrder {
  uid: OrderUid;
  /** Sell atoms (sell orders) or buy atoms (buy orders), as the contract counts fills. */
  filledAfter: string;
}

interface AuctionHeaderRow {
  id: string;
  block: string;
  deadline_block: string;
  order_uids: OrderUid[];
  prices: Record<Address, string>;
  transaction_hashes: Hex[];
}

interface SolutionRow {
  rank: number;
  solver_address: Address;
  score: string;
  is_winner: boolean;
  filtered_out: boolean;
  reference_score: string | null;
  clearing_prices: Record<Address, string>;
  tx_hash: Hex | null;
  orders: {
    id: OrderUid;
    sellAmount: string;
    buyAmount: string;
    sellToken: Address | null;
    buyToken: Address | null;
  }[];
}

function competitionOrder(o: SolutionRow['orders'][number]): ApiCompetitionOrder {
  const order: ApiCompetitionOrder = { id: o.id, sellAmount: o.sellAmount, buyAmount: o.buyAmount };
  if (o.sellToken !== null) order.sellToken = o.sellToken;
  if (o.buyToken !== null) order.buyToken = o.buyToken;
  return order;
}

export function createCompetitionQueries(db: Knex, schema = 'read'): CompetitionQueries {
  const t = (name: string) => table(schema, name);

  // The transactions of the auction's settlement attempts that the indexer has seen land.
  const header = (where: string) => `
    SELECT a.id, a.block, a.deadline_block, a.order_uids, a.prices,
      ARRAY(
        SELECT at.tx_hash FROM ${t('settlement_attempts')} at
        WHERE at.network = a.network AND at.auction_id = a.id AND EXISTS (
          SELECT 1 FROM ${t('settlements')} st
          WHERE st.network = at.network AND st.tx_hash = at.tx_hash)
        GROUP BY at.tx_hash ORDER BY min(at.rank)
      ) AS transaction_hashes
    FROM ${t('auctions')} a ${where}`;
  const byIdSql = header('WHERE a.network = $1 AND a.id = $2');
  const byTxSql = header(`WHERE a.network = $1 AND a.id = (
      SELECT auction_id FROM ${t('settlement_attempts')}
      WHERE network = $1 AND tx_hash = $2 ORDER BY auction_id DESC LIMIT 1)`);
  const latestSql = header('WHERE a.network = $1 ORDER BY a.id DESC LIMIT 1');

  // A failed attempt's transaction still counts when the chain shows it landed after all.
  const solutionsSql = `
    SELECT s.rank, s.solver_address, s.score::text AS score, s.is_winner, s.filtered_out,
      s.reference_score::text AS reference_score, s.clearing_prices,
      CASE WHEN at.failed_at IS NULL OR EXISTS (
        SELECT 1 FROM ${t('settlements')} st
        WHERE st.network = at.network AND st.tx_hash = at.tx_hash) THEN at.tx_hash END AS tx_hash,
      COALESCE((
        SELECT json_agg(json_build_object(
          'id', o.uid, 'sellAmount', o.sell_amount::text, 'buyAmount', o.buy_amount::text,
          'sellToken', o.sell_token, 'buyToken', o.buy_token) ORDER BY o.position)
        FROM ${t('competition_orders')} o
        WHERE o.network = s.network AND o.auction_id = s.auction_id AND o.rank = s.rank
      ), '[]'::json) AS orders
    FROM ${t('competition_solutions')} s
    LEFT JOIN ${t('settlement_attempts')} at
      ON at.network = s.network AND at.auction_id = s.auction_id AND at.rank = s.rank
    WHERE s.network = $1 AND s.auction_id = $2
    ORDER BY s.rank DESC`;

  // Per trade: the surplus over the order's limit price in the surplus token (buy token for sell
  // orders, sell token for buy orders), floored at 0, times that token's native price / 1e18,
  // all in integers. The price is the one of the auction whose settlement made the trade, else
  // the latest auction's that priced the token, else 0.
  const totalSurplusSql = `
    SELECT COALESCE(sum(div(greatest(x.surplus, 0) * x.price, 1000000000000000000)), 0)::text
      AS total
    FROM (
      SELECT
        CASE WHEN o.kind = 'sell'
          THEN tr.buy_amount
            - div((tr.sell_amount - tr.fee_amount) * o.buy_amount + o.sell_amount - 1, o.sell_amount)
          ELSE div(tr.buy_amount * o.sell_amount, o.buy_amount) - (tr.sell_amount - tr.fee_amount)
        END AS surplus,
        COALESCE(
          (SELECT (a.prices->>p.token)::numeric
            FROM ${t('settlement_attempts')} sa
            JOIN ${t('auctions')} a ON a.network = sa.network AND a.id = sa.auction_id
            WHERE sa.network = tr.network AND sa.tx_hash = tr.tx_hash
              AND a.prices->>p.token IS NOT NULL
            ORDER BY sa.auction_id DESC LIMIT 1),
          (SELECT tp.price FROM ${t('auction_token_prices')} tp
            WHERE tp.network = tr.network AND tp.token = p.token),
          0) AS price
      FROM ${t('trades')} tr
      JOIN ${t('orders')} o ON o.network = tr.network AND o.uid = tr.order_uid
      CROSS JOIN LATERAL (
        SELECT CASE WHEN o.kind = 'sell' THEN o.buy_token ELSE o.sell_token END AS token
      ) p
      WHERE tr.network = $1 AND tr.owner = $2 AND o.sell_amount > 0 AND o.buy_amount > 0
    ) x`;

  // Only the auctions whose deadline is ahead: the last few, by index.
  const inFlightSql = `
    SELECT o.uid, max(o.filled_after)::text AS filled_after
    FROM ${t('auctions')} a
    JOIN ${t('competition_solutions')} s
      ON s.network = a.network AND s.auction_id = a.id AND s.is_winner
    JOIN ${t('competition_orders')} o
      ON o.network = s.network AND o.auction_id = s.auction_id AND o.rank = s.rank
    LEFT JOIN ${t('settlement_attempts')} at
      ON at.network = s.network AND at.auction_id = s.auction_id AND at.rank = s.rank
    WHERE a.network = $1 AND a.deadline > $2 AND at.failed_at IS NULL
    GROUP BY o.uid
    ORDER BY o.uid`;

  // Every solution counts, winner or not, filtered out or not, as every proposal does there.
  const proposedSql = `
    SELECT EXISTS (
      SELECT 1 FROM ${t('competition_orders')} o
      WHERE o.network = $1 AND o.uid = $2 AND o.auction_id IN (
        SELECT a.id FROM ${t('auctions')} a WHERE a.network = $1 ORDER BY a.id DESC LIMIT $3)
    ) AS proposed`;

  const rows = <Row extends pg.QueryResultRow>(
    name: string,
    sql: string,
    values: readonly unknown[],
  ) => preparedRows<Row>(db, `competitions-${name}-${schema}`, sql, values);

  async function auctionHeader(
    network: string,
    selector: CompetitionSelector,
  ): Promise<AuctionHeaderRow | undefined> {
    if (selector === 'latest')
      return (await rows<AuctionHeaderRow>('latest', latestSql, [network]))[0];
    if ('txHash' in selector) {
      return (await rows<AuctionHeaderRow>('by-tx', byTxSql, [network, selector.txHash]))[0];
    }
    return (await rows<AuctionHeaderRow>('by-id', byIdSql, [network, selector.auctionId]))[0];
  }

  return {
    async competition(network, selector) {
      const auction = await auctionHeader(network, selector);
      if (!auction) return null;
      const solutions = await rows<SolutionRow>('solutions', solutionsSql, [network, auction.id]);
      const referenceScores: Record<Address, string> = {};
      for (const s of solutions) {
        if (s.is_winner && s.reference_score !== null) {
          referenceScores[s.solver_address] = s.reference_score;
        }
      }
      return {
        auctionId: Number(auction.id),
        auctionStartBlock: Number(auction.block),
        auctionDeadlineBlock: Number(auction.deadline_block),
        transactionHashes: auction.transaction_hashes,
        referenceScores,
        auction: { orders: auction.order_uids, prices: auction.prices },
        solutions: solutions.map((s) => ({
          solverAddress: s.solver_address,
          score: s.score,
          ranking: s.rank,
          clearingPrices: s.clearing_prices,
          orders: s.orders.map(competitionOrder),
          isWinner: s.is_winner,
          filteredOut: s.filtered_out,
          txHash: s.tx_hash,
          // The reference shows each solution its solver's reference score (§6).
          referenceScore: s.reference_score ?? referenceScores[s.solver_address] ?? null,
        })),
      };
    },

    orderStatus: createOrderStatusQuery(db, schema),

    async totalSurplus(network, owner) {
      const [row] = await rows<{ total: string }>('total-surplus', totalSurplusSql, [
        network,
        owner,
      ]);
      return row!.total;
    },

    async inFlight(network, now) {
      const found = await rows<{ uid: OrderUid; filled_after: string }>('in-flight', inFlightSql, [
        network,
        now,
      ]);
      return found.map((r) => ({ uid: r.uid, filledAfter: r.filled_after }));
    },

    async proposedInRecentAuctions(network, uid, auctions) {
      const [row] = await rows<{ proposed: boolean }>('proposed', proposedSql, [
        network,
        uid,
        auctions,
      ]);
      return row!.proposed;
    },
  };
}
