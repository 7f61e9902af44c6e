/**
 * GET /api/v1/orders/{uid}/status: an order's place in the solver competition (reference §3,
 * last paragraph; openapi `CompetitionOrderStatus`).
 *
 * The reference maps the latest of its per-order event labels (created, ready, considered,
 * executing, traded, cancelled, filtered, invalid). Ours are derived from the auctions and
 * trades read models instead, first match wins:
 *  1. `traded`: the order has a trade. `value`: the winning solutions that held it, from the
 *     auction whose settlement attempt sent the latest trade's transaction (else from the latest
 *     auction it won; else empty).
 *  2. `cancelled`: cancelled through the API.
 *  3. `executing`: it is in a winning solution whose settlement has neither failed nor been
 *     observed on chain, and whose auction's deadline is still ahead. `value`: those winners.
 *  4. Its latest competition: the network's latest auction when that auction holds the order;
 *     none when that auction filtered it out; else the latest auction with a solution that
 *     holds it (auctions between that one and the latest that held the order unsolved are not
 *     looked at: they have no row per order). When solutions of that competition hold it:
 *     - `open` when one of them won: rule 3 did not match, so that settlement failed, passed
 *       its deadline or landed without this order; the order waits for the next auction;
 *     - `solved` otherwise. `value`: every solution that holds it.
 *  5. `active`: it is among the orders of the network's latest auction.
 *  6. `open`: the latest auction filtered it out, or an older auction took it in or filtered
 *     it out.
 *  7. `scheduled`: the order exists and no auction has taken it in yet.
 *  8. Unknown order: null (404).
 * `value` lists solutions worst first (the winner last), as the spec asks.
 */
import type { Knex } from 'knex';
import type { OrderUid } from '../domain/events.js';
import { preparedRows } from './prepared.js';
import { table } from './schema.js';

export type CompetitionStatusType =
  'open' | 'scheduled' | 'active' | 'solved' | 'executing' | 'traded' | 'cancelled';

export interface CompetitionSolverEntry {
  /** The solver's name. */
  solver: string;
  executedAmounts: { sell: string; buy: string };
}

/** The API's `CompetitionOrderStatus`: `value` only for solved, executing and traded. */
export interface CompetitionOrderStatus {
  type: CompetitionStatusType;
  value?: CompetitionSolverEntry[];
}

interface FactsRow {
  known: boolean;
  cancelled: boolean;
  traded: boolean;
  trade_auction: string | null;
  last_won: string | null;
  executing: string | null;
  last_solved: string | null;
  last_solved_won: boolean;
  latest_id: string | null;
  in_latest: boolean;
  filtered_by_latest: boolean;
  seen: boolean;
}

interface EntryRow {
  solver: string;
  sell_amount: string;
  buy_amount: string;
}

export type OrderStatusQuery = (
  network: string,
  uid: OrderUid,
  now: Date,
) => Promise<CompetitionOrderStatus | null>;

export function createOrderStatusQuery(db: Knex, schema = 'read'): OrderStatusQuery {
  const t = (name: string) => table(schema, name);
  // $1 network, $2 uid, $3 now. Every part is an index lookup on the order's own rows, plus
  // one look at the UID arrays of the network's latest auction.
  const factsSql = `
    WITH latest AS (
      SELECT id, $2 = ANY(order_uids) AS included, $2 = ANY(filtered_uids) AS filtered
      FROM ${t('auctions')} WHERE network = $1 ORDER BY id DESC LIMIT 1
    ), trade AS (
      SELECT tx_hash FROM ${t('trades')} WHERE network = $1 AND order_uid = $2
      ORDER BY block_number DESC, log_index DESC LIMIT 1
    ), mine AS (
      SELECT o.auction_id, s.is_winner, a.deadline, at.failed_at IS NOT NULL AS failed,
        EXISTS (SELECT 1 FROM ${t('settlements')} st
                WHERE st.network = o.network AND st.tx_hash = at.tx_hash) AS observed
      FROM ${t('competition_orders')} o
      JOIN ${t('competition_solutions')} s
        ON s.network = o.network AND s.auction_id = o.auction_id AND s.rank = o.rank
      JOIN ${t('auctions')} a ON a.network = o.network AND a.id = o.auction_id
      LEFT JOIN ${t('settlement_attempts')} at
        ON at.network = o.network AND at.auction_id = o.auction_id AND at.rank = o.rank
      WHERE o.network = $1 AND o.uid = $2
    ), last_solved AS (SELECT max(auction_id) AS id FROM mine)
    SELECT
      ord.uid IS NOT NULL AS known,
      ord.cancellation_date IS NOT NULL AS cancelled,
      EXISTS (SELECT 1 FROM trade) AS traded,
      (SELECT sa.auction_id FROM ${t('settlement_attempts')} sa
        WHERE sa.network = $1 AND sa.tx_hash = (SELECT tx_hash FROM trade)
        ORDER BY sa.auction_id DESC LIMIT 1)::text AS trade_auction,
      (SELECT max(auction_id) FROM mine WHERE is_winner)::text AS last_won,
      (SELECT max(auction_id) FROM mine
        WHERE is_winner AND NOT failed AND NOT observed AND deadline > $3)::text AS executing,
      (SELECT id FROM last_solved)::text AS last_solved,
      EXISTS (SELECT 1 FROM mine WHERE is_winner AND auction_id = (SELECT id FROM last_solved))
        AS last_solved_won,
      (SELECT id FROM latest)::text AS latest_id,
      COALESCE((SELECT included FROM latest), false) AS in_latest,
      COALESCE((SELECT filtered FROM latest), false) AS filtered_by_latest,
      EXISTS (SELECT 1 FROM ${t('auctioned_orders')} WHERE network = $1 AND uid = $2) AS seen
    FROM (SELECT 1) one
    LEFT JOIN ${t('orders')} ord ON ord.network = $1 AND ord.uid = $2`;

  // $1 network, $2 uid, $3 auction id, $4 winners only.
  const entriesSql = `
    SELECT s.solver_address AS solver, o.sell_amount::text AS sell_amount, o.buy_amount::text AS buy_amount
    FROM ${t('competition_orders')} o
    JOIN ${t('competition_solutions')} s
      ON s.network = o.network AND s.auction_id = o.auction_id AND s.rank = o.rank
    WHERE o.network = $1 AND o.uid = $2 AND o.auction_id = $3 AND (s.is_winner OR NOT $4)
    ORDER BY o.rank DESC`;

  const entries = async (
    network: string,
    uid: OrderUid,
    auctionId: string | null,
    winnersOnly: boolean,
  ): Promise<CompetitionSolverEntry[]> => {
    if (auctionId === null) return [];
    const rows = await preparedRows<EntryRow>(db, `order-status-entries-${schema}`, entriesSql, [
      network,
      uid,
      auctionId,
      winnersOnly,
    ]);
    return rows.map((r) => ({
      solver: r.solver,
      executedAmounts: { sell: r.sell_amount, buy: r.buy_amount },
    }));
  };

  return async (network, uid, now) => {
    const [f] = await preparedRows<FactsRow>(db, `order-status-facts-${schema}`, factsSql, [
      network,
      uid,
      now,
    ]);
    if (!f) return null;
    if (f.traded) {
      const auction = f.trade_auction ?? f.last_won;
      return { type: 'traded', value: await entries(network, uid, auction, true) };
    }
    if (!f.known) return null;
    if (f.cancelled) return { type: 'cancelled' };
    if (f.executing !== null) {
      return { type: 'executing', value: await entries(network, uid, f.executing, true) };
    }
    const competition = f.in_latest ? f.latest_id : f.filtered_by_latest ? null : f.last_solved;
    if (competition !== null && competition === f.last_solved) {
      if (f.last_solved_won) return { type: 'open' };
      return { type: 'solved', value: await entries(network, uid, competition, false) };
    }
    if (f.in_latest) return { type: 'active' };
    if (f.filtered_by_latest || f.seen) return { type: 'open' };
    return { type: 'scheduled' };
  };
}
