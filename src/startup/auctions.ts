/**
 * The auctions: per live network its settlement driver (when it has an account to send from),
 * its solvers (the built-in one and the configured engines), what quotes ask of them, and the
 * autopilot that cuts, solves, records and settles.
 */
import { startAutopilot } from '../auction/autopilot.js';
import { createSettlementDriver, type SettlementDriver } from '../auction/driver.js';
import { createExternalSolver } from '../auction/external-solver.js';
import type { MarketSources } from '../auction/round.js';
import { settlementFeedback } from '../auction/settlement-feedback.js';
import { createSolverQuotes, type SolverQuotes } from '../auction/solver-quotes.js';
import type { Solver } from '../auction/solver.js';
import { startSolverThread, type SolverThread } from '../auction/solver-thread/thread.js';
import { devnetSolver } from '../chain/devnet/accounts.js';
import { createTokenFacts } from '../chain/token-facts.js';
import type { Config } from '../config.js';
import type { Address } from '../domain/events.js';
import { networkByName, type Network } from '../domain/networks.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { sequenceIds } from '../postgres/sequence.js';
import type { ProjectionThreadEngine } from '../projection-thread/thread.js';
import type { Chains } from './chains.js';
import type { Infrastructure } from './infrastructure.js';
import type { Lifetime } from './lifetime.js';
import type { Queries } from './queries.js';
import type { TokenReads } from './token-reads.js';

export interface Auctions {
  /** Per live network: its quoting solvers. */
  solverQuotes: ReadonlyMap<string, SolverQuotes>;
}

/** What every network's auction parts are made with. */
export interface AuctionSources {
  config: Config;
  infra: Infrastructure;
  chains: Chains;
  queries: Queries;
  tokens: TokenReads;
  metrics: ServiceMetrics;
  clock: () => Date;
  life: Lifetime;
}

/** Runs after the projections: the autopilots cut from their read models and wait on them. */
export async function startAuctions(
  shared: AuctionSources,
  projections: ProjectionThreadEngine,
): Promise<Auctions> {
  const nextAuctionId = sequenceIds(shared.infra.pool, 'batchbook_auction_ids');
  // Stopped after the autopilots and quotes that ask it (a lifetime closes in reverse).
  const solverThread = shared.config.auction.builtinSolver
    ? startBuiltinSolverThread(shared)
    : null;
  const solverQuotes = new Map<string, SolverQuotes>();
  for (const name of shared.chains.live.names) {
    const network = networkByName(name)!;
    // The driver tells each winner's solver what became of it.
    const byName = new Map<string, Solver>();
    const driver = startDriver(shared, network, (solver) => byName.get(solver));
    const solvers = solversOf(shared, network, driver, solverThread);
    for (const solver of solvers) byName.set(solver.name, solver);
    const market = marketOf(shared, name);
    solverQuotes.set(
      name,
      createSolverQuotes({
        network,
        solvers: solvers.filter((solver) => solver.quotes),
        market,
        timeoutMs: shared.config.auction.quoteSolveTimeoutMs,
        clock: shared.clock,
        logger: shared.infra.logger,
      }),
    );
    startNetworkAutopilot(shared, network, { driver, solvers, market, projections, nextAuctionId });
  }
  // Quotes and auctions asked from now on are solved at once, not after the thread has loaded.
  await solverThread?.ready;
  return { solverQuotes };
}

function startDriver(
  { config, infra, chains, metrics, clock, life }: AuctionSources,
  network: Network,
  solverNamed: (name: string) => Solver | undefined,
): SettlementDriver | null {
  const key =
    config.auction.driverKeys.get(network.name) ??
    (chains.local(network.name) ? devnetSolver().privateKey : null);
  if (!key) return null;
  const driver = createSettlementDriver({
    network,
    rpc: chains.live.rpc(network.name)!,
    privateKey: key,
    ledger: infra.ledger,
    clock,
    logger: infra.logger,
    receiptPollIntervalMs: config.indexer.pollIntervalMs,
    observer: metrics.auctions,
    onOutcome: (auctionId, solution, outcome) =>
      solverNamed(solution.solver)?.notify(settlementFeedback(auctionId, solution, outcome)),
  });
  life.onStop(() => driver.stop());
  return driver;
}

function startBuiltinSolverThread({ infra, life }: AuctionSources): SolverThread {
  const thread = startSolverThread({
    onError: (err) => infra.logger.error({ err }, 'solver thread failure'),
  });
  life.onStop(() => thread.stop());
  return thread;
}

/**
 * The built-in solver (which settles with the driver's account, and solves auctions on its own
 * thread) and the configured engines.
 */
function solversOf(
  { config, infra }: AuctionSources,
  network: Network,
  driver: SettlementDriver | null,
  solverThread: SolverThread | null,
): Solver[] {
  return [
    ...(solverThread && driver
      ? [
          solverThread.builtinSolver({
            address: driver.address,
            wrappedNative: network.wrappedNativeToken.toLowerCase() as Address,
            slippageBps: BigInt(config.auction.builtinSolverSlippageBps),
          }),
        ]
      : []),
    ...config.auction.externalSolvers
      .filter((solver) => solver.networks?.includes(network.name) ?? true)
      .map((solver) => createExternalSolver(solver, { logger: infra.logger })),
  ];
}

function marketOf({ chains, tokens }: AuctionSources, name: string): MarketSources {
  const prices = chains.live.prices(name)!;
  return {
    pools: (tokens, block) => prices.pools(tokens, block),
    tokenFacts: createTokenFacts(chains.live.rpc(name)!, tokens.decimals.get(name)!),
    gasPrice: (block) => prices.gasPrice(block),
  };
}

function startNetworkAutopilot(
  { config, infra, chains, queries, metrics, clock, life }: AuctionSources,
  network: Network,
  parts: {
    driver: SettlementDriver | null;
    solvers: Solver[];
    market: MarketSources;
    projections: ProjectionThreadEngine;
    nextAuctionId: () => Promise<number>;
  },
): void {
  const { name } = network;
  const rpc = chains.live.rpc(name)!;
  const { auction } = config;
  const autopilot = startAutopilot({
    network,
    cut: {
      solvable: (now, validAfter) => queries.orders.solvable(name, now, validAfter),
      inFlight: (now) => queries.competitions.inFlight(name, now),
      prices: chains.live.prices(name)!,
      chain: chains.live.checks(name),
      blockNumber: () => rpc.request('block number', (p) => p.getBlockNumber()),
      validityMargin: auction.validityMarginSeconds,
      interactionTargets: network,
    },
    orderChecks: chains.live.checks(name),
    expiryDue: (now) => queries.notices.expiryDue(name, now),
    market: parts.market,
    trusted: auction.trustedTokens.get(name)!,
    solvers: parts.solvers,
    driver: parts.driver,
    ledger: infra.ledger,
    nextAuctionId: parts.nextAuctionId,
    projected: async (position) => {
      const caughtUp = await Promise.all(
        ['auctions', 'notices'].map((projector) =>
          parts.projections.waitFor(projector, position, auction.solveTimeoutMs),
        ),
      );
      if (caughtUp.every(Boolean)) return true;
      metrics.countAutopilotReadModelTimeout(name);
      return false;
    },
    clock,
    requestLeadership: infra.requestLeadership,
    logger: infra.logger,
    intervalMs: chains.local(name) ? auction.devnetIntervalMs : auction.intervalMs,
    solveTimeoutMs: auction.solveTimeoutMs,
    settlementDeadlineMs: auction.settlementDeadlineMs,
    observer: metrics.auctions,
  });
  life.onStop(() => autopilot.stop());
}
