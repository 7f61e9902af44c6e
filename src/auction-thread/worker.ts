/**
 * The auction thread: a composition root of its own that runs every live network's autopilot
 * and settlement driver off the thread serving requests. It opens its own PostgreSQL
 * connections, ledger and leader sessions, its own node clients, and the built-in solver's
 * thread; it asks the service thread whether the read models have caught up (their checkpoints
 * live there), and sends it its metrics and its log lines.
 */
import { parentPort, threadId, workerData } from 'node:worker_threads';
import knex from 'knex';
import { dedicatedConnectionConfig } from '../../projections/connection.js';
import { eventPayloadProblem } from '../../schemas/event-payloads.js';
import { startAutopilot, type AutopilotDeps } from '../auction/autopilot.js';
import { createSettlementDriver, type SettlementDriver } from '../auction/driver.js';
import type { AuctionObserver } from '../auction/observer.js';
import { settlementFeedback } from '../auction/settlement-feedback.js';
import { startSolverThread, type SolverThread } from '../auction/solver-thread/thread.js';
import type { Solver } from '../auction/solver.js';
import { createOrderChainChecks } from '../chain/order-checks.js';
import { createPriceEstimator } from '../chain/prices.js';
import { createChainRpc, type RpcObserver } from '../chain/rpc.js';
import { createTokenDecimals } from '../chain/token-decimals.js';
import { networkByName, type Network } from '../domain/networks.js';
import { openLedger } from '../ledger/open-ledger.js';
import type { Ledger } from '../ledger/port.js';
import type { RequestLeadership } from '../ledger/leadership.js';
import { createLogger } from '../logger.js';
import { createPool, knexLog, knexOptions } from '../postgres/connection-options.js';
import { leadershipOn } from '../postgres/leadership.js';
import { sequenceIds } from '../postgres/sequence.js';
import { createCompetitionQueries } from '../queries/competitions.js';
import { createNoticeQueries } from '../queries/notices.js';
import { createOrderQueries } from '../queries/orders.js';
import { shiftedClock } from '../service-clock.js';
import {
  builtinSolverParams,
  driverAddressOf,
  driverKeyOf,
  marketOf,
  solversOf,
} from '../startup/auction-parts.js';
import { errorRecord } from '../threads/error-record.js';
import { relayedObserver, type ObserverCall } from '../threads/observer-relay.js';
import { runSupervised } from '../threads/supervised.js';
import type { AuctionThreadData, FromAuctionThread, ToAuctionThread } from './messages.js';

/** Ledger appends (auctions, settlements), auction ids, the drivers' reads. */
const POOL_MAX = 4;
/** The cuts' reads of the read models, and the autopilots' leader sessions. */
const QUERY_POOL_MAX = 4;

const data = workerData as AuctionThreadData;
const { config } = data;
const post = (message: FromAuctionThread) => parentPort!.postMessage(message);
const logger = createLogger(data.logLevel, { write: (line) => post({ type: 'log', line }) });
const clock = shiftedClock(data.clockShift);
const observed = (call: ObserverCall) => post({ type: 'observed', call });
const auctionObserver = relayedObserver<AuctionObserver>(
  'auctions',
  ['cut', 'solverAnswered', 'won', 'settlement'],
  observed,
);
const rpcObserver = relayedObserver<RpcObserver>('rpc', ['answered'], observed);

/**
 * The `projected` questions waiting for the service thread's answer, by id: named by this
 * thread's id too, so an answer meant for a thread that ended never reaches the one after it.
 */
const projectedWaits = new Map<string, (caughtUp: boolean) => void>();
let lastQuestion = 0;
const projected = (network: string, position: string) =>
  new Promise<boolean>((resolve) => {
    const id = `${threadId}.${++lastQuestion}`;
    projectedWaits.set(id, resolve);
    post({ type: 'projected', id, network, position });
  });

/** What every network's autopilot shares on this thread. */
interface Shared {
  ledger: Ledger;
  requestLeadership: RequestLeadership;
  queries: {
    orders: ReturnType<typeof createOrderQueries>;
    competitions: ReturnType<typeof createCompetitionQueries>;
    notices: ReturnType<typeof createNoticeQueries>;
  };
  nextAuctionId(): Promise<number>;
  solverThread: SolverThread | null;
}

await runSupervised<ToAuctionThread>({
  reportError: (err) => post({ type: 'error', error: errorRecord(err) }),
  onMessage: (answer) => {
    projectedWaits.get(answer.id)?.(answer.caughtUp);
    projectedWaits.delete(answer.id);
  },
  async start(closeLater) {
    const pool = createPool(data.databaseUrl, data.deadlines, POOL_MAX);
    pool.on('error', (err) => logger.warn({ err }, 'idle PostgreSQL connection failed'));
    closeLater(() => pool.end());
    const ledger = openLedger(config.ledger, {
      pool,
      onError: (err) => logger.warn({ err }, 'ledger connection failed; retrying'),
      check: eventPayloadProblem,
    });
    closeLater(() => ledger.close());
    const db = knex({
      client: 'pg',
      ...knexOptions(data.databaseUrl, data.deadlines, { min: 0, max: QUERY_POOL_MAX }),
      log: knexLog(logger),
    });
    closeLater(() => db.destroy());
    const solverThread = config.auction.builtinSolver
      ? startSolverThread({
          onError: (err) => logger.error({ err }, 'solver thread failure'),
        })
      : null;
    if (solverThread) closeLater(() => solverThread.stop());
    const shared: Shared = {
      ledger,
      requestLeadership: leadershipOn(dedicatedConnectionConfig(db)),
      queries: {
        orders: createOrderQueries(db),
        competitions: createCompetitionQueries(db),
        notices: createNoticeQueries(db),
      },
      nextAuctionId: sequenceIds(pool, 'batchbook_auction_ids'),
      solverThread,
    };
    for (const [name, url] of data.rpcUrls) {
      startNetwork(shared, networkByName(name)!, url, closeLater);
    }
    // Auctions are solved at once from now on, not after the solver thread has loaded.
    await solverThread?.ready;
  },
});

/** `network`'s node client, driver, solvers and autopilot; each closed when the thread stops. */
function startNetwork(
  shared: Shared,
  network: Network,
  rpcUrl: string,
  closeLater: (close: () => Promise<unknown>) => void,
): void {
  const { name } = network;
  const local = data.localNetworks.has(name);
  const rpc = createChainRpc(network, rpcUrl, config.rpc, rpcObserver);
  closeLater(async () => rpc.close());
  const checks = createOrderChainChecks(rpc, network);
  const prices = createPriceEstimator(rpc, network);
  const key = driverKeyOf(config, network, local);
  // The driver tells each winner's solver what became of it.
  const byName = new Map<string, Solver>();
  let driver: SettlementDriver | null = null;
  if (key) {
    const started = createSettlementDriver({
      network,
      rpc,
      privateKey: key,
      ledger: shared.ledger,
      clock,
      logger,
      receiptPollIntervalMs: config.indexer.pollIntervalMs,
      observer: auctionObserver,
      onOutcome: (auctionId, solution, outcome) =>
        byName.get(solution.solver)?.notify(settlementFeedback(auctionId, solution, outcome)),
    });
    closeLater(() => started.stop());
    driver = started;
  }
  const builtin =
    shared.solverThread && key
      ? shared.solverThread.builtinSolver(
          builtinSolverParams(config, network, driverAddressOf(key)),
        )
      : null;
  const solvers = solversOf(config, network, builtin, logger);
  for (const solver of solvers) byName.set(solver.name, solver);
  const { auction } = config;
  const deps: AutopilotDeps = {
    network,
    cut: {
      solvable: (now, validAfter) => shared.queries.orders.solvable(name, now, validAfter),
      inFlight: (now) => shared.queries.competitions.inFlight(name, now),
      prices,
      chain: checks,
      blockNumber: () => rpc.request('block number', (p) => p.getBlockNumber()),
      validityMargin: auction.validityMarginSeconds,
      interactionTargets: network,
    },
    orderChecks: checks,
    expiryDue: (now) => shared.queries.notices.expiryDue(name, now),
    market: marketOf(prices, rpc, createTokenDecimals(rpc)),
    trusted: auction.trustedTokens.get(name)!,
    solvers,
    driver,
    ledger: shared.ledger,
    nextAuctionId: shared.nextAuctionId,
    projected: (position) => projected(name, position),
    clock,
    requestLeadership: shared.requestLeadership,
    logger,
    intervalMs: local ? auction.devnetIntervalMs : auction.intervalMs,
    solveTimeoutMs: auction.solveTimeoutMs,
    settlementDeadlineMs: auction.settlementDeadlineMs,
    observer: auctionObserver,
  };
  const autopilot = startAutopilot(deps);
  closeLater(() => autopilot.stop());
}
