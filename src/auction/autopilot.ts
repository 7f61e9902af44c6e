/**
 * The autopilot of one live network (reference §6, DESIGN §7): every auction interval, while
 * there are open orders, it cuts an auction, asks every solver for solutions, ranks them, records
 * the whole competition as `AuctionClosed` (which `GET /api/v1/auction` then serves) and hands
 * each winner to the settlement driver. One instance per network runs it (a leader lock); the
 * others wait.
 */
import type { Logger } from 'pino';
import { changesSince, unchanged, wholeCut, type CutRecord } from '../domain/auction-record.js';
import { deterministicEventId } from '../domain/event-ids.js';
import { envelope } from '../domain/event-envelope.js';
import { streams, type Address, type AuctionClosedV5 } from '../domain/events.js';
import type { Network } from '../domain/networks.js';
import type { Ledger } from '../ledger/port.js';
import { timedStage, timedStep } from '../metrics/stage-timings.js';
import { startLeaderLoop, type LeaderLoop } from '../chain/leader-loop.js';
import type { LeaderKey, RequestLeadership } from '../ledger/leadership.js';
import { auctionedOrders, cutAuction, type CutDeps } from './cut.js';
import type { SettlementDriver } from './driver.js';
import { filterReasonOf, type OrderProbeChecks } from './order-probe.js';
import type { AuctionObserver } from './observer.js';
import { readMarket, runRound, type MarketSources, type RoundDeps } from './round.js';
import type { Solver } from './solver.js';

/** Blocks the winners have to settle in (the reference's default `submission_deadline`). */
export const SUBMISSION_DEADLINE_BLOCKS = 5;

/** The leader lock of a network's autopilot: one instance across processes runs its auctions. */
export const autopilotLeaderKey = (network: string): LeaderKey => ['batchbook.autopilot', network];

export interface AutopilotDeps {
  network: Network;
  cut: CutDeps;
  /**
   * Whether an auction cut at `now` (Unix seconds) would expire an order in the notices: then an
   * auction is cut even with nothing to solve, so that the ledger's clock passes its expiry.
   */
  expiryDue(now: number): Promise<boolean>;
  /** The liquidity solvers may route through, the tokens' facts and the gas price. */
  market: MarketSources;
  /** Tokens the network's solvers may hold in the settlement contract's buffers (CIP-2). */
  trusted: ReadonlySet<Address>;
  solvers: readonly Solver[];
  /** The chain reads that tell why an order of a winner that would revert cannot settle. */
  orderChecks: OrderProbeChecks;
  /** Null when the network has no driver account: auctions are solved, never settled. */
  driver: SettlementDriver | null;
  ledger: Ledger;
  nextAuctionId(): Promise<number>;
  /**
   * Whether the read models took in the ledger up to `position` within a bounded wait: the next
   * cut must see this auction's winners as in flight, and the expiries it noticed.
   */
  projected(position: string): Promise<boolean>;
  clock: () => Date;
  requestLeadership: RequestLeadership;
  logger: Logger;
  /** Told of each cut, each solver's answer and each win. */
  observer: AuctionObserver;
  intervalMs: number;
  /** How long solvers have to answer. */
  solveTimeoutMs: number;
  /** How long winners have to settle before their orders return to auctions. */
  settlementDeadlineMs: number;
}

/** How many of `items` have each key. */
function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

export function startAutopilot(deps: AutopilotDeps): LeaderLoop {
  const { network } = deps;
  const logger = deps.logger.child({ network: network.name, component: 'autopilot' });

  const roundDeps: RoundDeps = {
    network,
    solvers: deps.solvers,
    driver: deps.driver,
    orderChecks: deps.orderChecks,
    trusted: deps.trusted,
    solveTimeoutMs: deps.solveTimeoutMs,
    clock: deps.clock,
    logger,
    observer: deps.observer,
  };

  /** The round's ranking, and the orders left out of it because they cannot settle now. */
  async function solveRound(id: number, cut: Awaited<ReturnType<typeof cutAuction>>) {
    if (cut.orders.length === 0) return { solutions: [], excluded: new Map() };
    const market = await timedStage('auction: market', () =>
      readMarket(deps.market, network, cut, cut.block),
    );
    return runRound(roundDeps, id, cut, market);
  }

  /** The last auction this instance recorded, and its cut whole: what the next one changes. */
  let lastRecorded: { id: number; cut: CutRecord } | null = null;

  const step = async (isStopping: () => boolean, isLeading: () => boolean) => {
    const now = deps.clock();
    const nowSeconds = Math.floor(now.getTime() / 1000);
    const cut = await timedStage('auction: cut', () => cutAuction(deps.cut, now));
    // An empty auction only marks time: the notices learn of expiries from auctions (DESIGN §4).
    // Asked of the notices themselves, so an expiry a winning settlement held (until it failed,
    // or its deadline passed) still gets its auction.
    if (cut.orders.length === 0 && cut.filtered.length === 0) {
      if (!(await deps.expiryDue(nowSeconds))) return;
    }
    const id = await deps.nextAuctionId();
    const { solutions, excluded } = await solveRound(id, cut);
    // Orders left out while solving are recorded as a cut would have filtered them.
    const record: CutRecord = {
      orders: auctionedOrders(cut.orders.filter((order) => !excluded.has(order.uid))),
      prices: cut.prices,
      filtered: [
        ...cut.filtered,
        ...[...excluded].map(([uid, problem]) => ({ uid, reason: filterReasonOf(problem) })),
      ],
    };
    deps.observer.cut(
      network.name,
      record.orders.length,
      countBy(record.filtered, (f) => f.reason),
    );
    const changes = timedStep('auction: record changes', () =>
      lastRecorded ? changesSince(lastRecorded, record) : wholeCut(record),
    );
    // The same cut again, with nothing solved: nothing to record, unless the notices need an
    // auction to see an expiry by (the ledger's clock).
    if (unchanged(changes) && solutions.length === 0 && !(await deps.expiryDue(nowSeconds))) {
      logger.debug({ auction: id, base: changes.base }, 'the same cut again: not recorded');
      return;
    }
    const auction: AuctionClosedV5 = {
      network: network.name,
      id,
      block: cut.block,
      cutAt: now.toISOString(),
      deadline: new Date(now.getTime() + deps.settlementDeadlineMs).toISOString(),
      deadlineBlock: cut.block + SUBMISSION_DEADLINE_BLOCKS,
      base: changes.base,
      orders: [...changes.orders],
      left: changes.left,
      prices: { ...changes.prices },
      unpriced: changes.unpriced,
      filtered: [...changes.filtered],
      unfiltered: changes.unfiltered,
      solutions,
    };
    // Solving takes a while: another instance may lead by now and have cut the same orders,
    // which this auction does not yet hold in flight. (It narrows the window, no more: the lock
    // may still go between this check and the append.)
    if (!isLeading()) {
      logger.warn({ auction: id }, 'leadership lost while solving: auction not recorded');
      return;
    }
    const { position } = await timedStage('auction: append', () =>
      deps.ledger.append(
        streams.auction(network.name, id),
        [
          envelope(
            { type: 'AuctionClosed', data: auction },
            deterministicEventId('AuctionClosed', network.name, id),
          ),
        ],
        'noStream',
      ),
    );
    // The next record changes this one; whichever instance recorded the ones between, a record
    // names its base, so changes against an older one are still read right.
    lastRecorded = { id, cut: record };
    const winners = auction.solutions.filter((solution) => solution.isWinner);
    for (const winner of winners) deps.observer.won(network.name, winner.solver);
    logger.info(
      { auction: id, orders: record.orders.length, solutions: auction.solutions.length },
      'auction closed',
    );
    if (winners.length > 0 && deps.driver === null) {
      logger.warn({ auction: id }, 'no driver account for this network: winners are not settled');
    }
    // Settlements run beside the next auctions, which leave their orders out until they end;
    // one after another, so each is simulated on the chain the one before left behind. They are
    // sent even if this instance no longer leads: once the auction is projected, its winners'
    // orders are in flight for any leader's cut.
    const driver = deps.driver;
    if (driver) {
      void (async () => {
        for (const winner of winners) await driver.settle(auction, cut.orders, winner);
      })();
    }
    // The next cut waits until the read models show this auction, however long they take: cut
    // before, it would auction the winners' orders again (and miss the expiries noticed).
    while (!(await deps.projected(position))) {
      if (isStopping()) return;
      logger.warn({ auction: id }, 'read models behind this auction: the next cut waits for them');
    }
  };
  return startLeaderLoop({
    requestLeadership: deps.requestLeadership,
    key: autopilotLeaderKey(network.name),
    pollIntervalMs: deps.intervalMs,
    logger,
    step,
  });
}
