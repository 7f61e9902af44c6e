/**
 * The auctions: every live network's autopilot and settlement driver on the auction thread
 * (src/auction-thread), and here, for quotes, each network's quoting solvers (the built-in one,
 * in process, and the configured engines marked for quoting).
 */
import { startAuctionThread } from '../auction-thread/thread.js';
import { builtinSolverOf } from '../auction/builtin-solver.js';
import { createSolverQuotes, type SolverQuotes } from '../auction/solver-quotes.js';
import type { Config } from '../config.js';
import { networkByName, type Network } from '../domain/networks.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { ProjectionThreadEngine } from '../projection-thread/thread.js';
import type { ClockShift } from '../service-clock.js';
import {
  builtinSolverParams,
  driverAddressOf,
  driverKeyOf,
  marketOf,
  solversOf,
} from './auction-parts.js';
import type { Chains } from './chains.js';
import type { Infrastructure } from './infrastructure.js';
import type { Lifetime } from './lifetime.js';
import type { TokenReads } from './token-reads.js';

export interface Auctions {
  /** Per live network: its quoting solvers. */
  solverQuotes: ReadonlyMap<string, SolverQuotes>;
  /** The auction thread's V8 heap in use, in bytes; null when it does not answer. */
  threadHeapUsed(): Promise<number | null>;
  /**
   * Resolves once the autopilots run on the auction thread, which loads while the service's
   * later steps start; rejects if it cannot start.
   */
  started: Promise<void>;
}

/** What the auctions are made with. */
export interface AuctionSources {
  config: Config;
  infra: Infrastructure;
  chains: Chains;
  tokens: TokenReads;
  metrics: ServiceMetrics;
  clock: () => Date;
  clockShift: ClockShift;
  life: Lifetime;
}

/** Runs after the projections: the autopilots cut from their read models and wait on them. */
export function startAuctions(
  sources: AuctionSources,
  projections: ProjectionThreadEngine,
  workerUrl?: string,
): Auctions {
  const { config, infra, chains, metrics, life } = sources;
  const solverQuotes = new Map<string, SolverQuotes>();
  for (const name of chains.live.names) {
    solverQuotes.set(name, quotesOf(sources, networkByName(name)!));
  }
  const { thread, started } = startAuctionThread({
    config,
    databaseUrl: infra.database.url,
    deadlines: infra.deadlines,
    rpcUrls: chains.rpcUrls,
    localNetworks: new Set([...chains.live.names].filter((name) => chains.local(name))),
    clockShift: sources.clockShift,
    workerUrl,
    projected: async (network, position) => {
      const caughtUp = await Promise.all(
        ['auctions', 'notices'].map((projector) =>
          projections.waitFor(projector, position, config.auction.solveTimeoutMs),
        ),
      );
      if (caughtUp.every(Boolean)) return true;
      metrics.countAutopilotReadModelTimeout(network);
      return false;
    },
    observers: { auctions: metrics.auctions, rpc: metrics.rpc },
    logger: infra.logger,
    onError: (err) => life.report('auction thread failure', err),
  });
  life.onStop(() => thread.stop());
  return { solverQuotes, threadHeapUsed: () => thread.heapUsed(), started };
}

/** `network`'s quoting solvers, over the market this thread reads for quotes. */
function quotesOf(
  { config, infra, chains, tokens, clock }: AuctionSources,
  network: Network,
): SolverQuotes {
  const { name } = network;
  const key = driverKeyOf(config, network, chains.local(name));
  // A quote is one order: the built-in solver prices it where it is asked.
  const builtin =
    config.auction.builtinSolver && key
      ? builtinSolverOf(builtinSolverParams(config, network, driverAddressOf(key)))
      : null;
  const rpc = chains.live.rpc(name)!;
  return createSolverQuotes({
    network,
    solvers: solversOf(config, network, builtin, infra.logger).filter((solver) => solver.quotes),
    market: marketOf(chains.live.prices(name)!, rpc, tokens.decimals.get(name)!),
    timeoutMs: config.auction.quoteSolveTimeoutMs,
    clock,
    logger: infra.logger,
  });
}
