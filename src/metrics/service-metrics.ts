/**
 * Every Prometheus family batchbook serves at `/metrics` (DESIGN.md §8) is declared here or in
 * the files beside this one, on one registry: the process (memory, garbage collection,
 * event-loop delay); HTTP requests, orders placed and refused, rate-limit refusals
 * (./http-requests.ts); read-your-writes waits; auctions cut and their filtered orders, each
 * solver's answers, their time and its wins, settlements and their gas; JSON-RPC requests per
 * network and method; deliveries per channel and outcome. Gauges read when scraped (lags,
 * the outbox, storage) are in ./scraped-gauges.ts and ./storage.ts.
 *
 * The rooms report through observer interfaces of their own (AuctionObserver, RpcObserver,
 * DeliveryObserver): they never import prom-client.
 */
import type { Middleware } from 'koa';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AuctionObserver } from '../auction/observer.js';
import type { RpcObserver } from '../chain/rpc.js';
import type { DeliveryObserver } from '../delivery/worker.js';
import { httpRequestMetrics } from './http-requests.js';
import { PREFIX, SECONDS } from './units.js';

/** A solver's time to answer, in seconds: up to the longest solve deadlines configured. */
const SOLVE_SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 40];
/** Gas a settlement used: from one trade to a half-block batch. */
const GAS = [100_000, 200_000, 400_000, 800_000, 1_600_000, 3_200_000, 6_400_000, 15_000_000];
/** A JSON-RPC request's time, in seconds: a local node's milliseconds to a public one's seconds. */
const RPC_SECONDS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface ServiceMetrics {
  readonly registry: Registry;
  /** Counts and times every request; first in the middleware chain, so it sees final answers. */
  readonly http: Middleware;
  /** One write's wait for its own projection; `caughtUp` false when the wait timed out. */
  observeReadYourWrites(projector: string, seconds: number, caughtUp: boolean): void;
  /** An autopilot's wait for the read models to take in its auction timed out (it waits on). */
  countAutopilotReadModelTimeout(network: string): void;
  readonly auctions: AuctionObserver;
  readonly rpc: RpcObserver;
  readonly deliveries: DeliveryObserver;
}

export function createServiceMetrics(): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: PREFIX });
  const family = { registers: [registry] };

  const waits = new Histogram({
    name: `${PREFIX}read_your_writes_wait_seconds`,
    help: 'Wait of an accepted write until its projector applied it, by projector',
    labelNames: ['projector'],
    buckets: SECONDS,
    ...family,
  });
  const waitTimeouts = new Counter({
    name: `${PREFIX}read_your_writes_timeouts_total`,
    help: 'Writes answered before their projector applied them (the wait timed out)',
    labelNames: ['projector'],
    ...family,
  });
  const autopilotTimeouts = new Counter({
    name: `${PREFIX}autopilot_read_model_timeouts_total`,
    help: 'Waits of an autopilot for the read models to take in its auction that timed out (its next cut waits on)',
    labelNames: ['network'],
    ...family,
  });

  const auctionsCut = new Counter({
    name: `${PREFIX}auctions_cut_total`,
    help: 'Auctions cut and put to the solvers (an unchanged one may go unrecorded), by network',
    labelNames: ['network'],
    ...family,
  });
  const auctionOrders = new Gauge({
    name: `${PREFIX}auction_orders`,
    help: 'Orders in the latest auction cut, by network',
    labelNames: ['network'],
    ...family,
  });
  const auctionFiltered = new Gauge({
    name: `${PREFIX}auction_filtered_orders`,
    help: 'Orders the latest auction cut left out, by network and reason',
    labelNames: ['network', 'reason'],
    ...family,
  });
  /** Per network, every reason a cut has filtered orders for. */
  const filterReasons = new Map<string, Set<string>>();
  const reasonsSeen = (network: string) => {
    let seen = filterReasons.get(network);
    if (!seen) filterReasons.set(network, (seen = new Set()));
    return seen;
  };
  const solverAnswers = new Counter({
    name: `${PREFIX}solver_answers_total`,
    help: "Solvers' answers to auctions, by network, solver and outcome (solutions, empty, timeout, error, refused)",
    labelNames: ['network', 'solver', 'outcome'],
    ...family,
  });
  const solveTimes = new Histogram({
    name: `${PREFIX}solver_solve_duration_seconds`,
    help: 'Time from asking a solver to its answer (or failure), by network and solver',
    labelNames: ['network', 'solver'],
    buckets: SOLVE_SECONDS,
    ...family,
  });
  const wins = new Counter({
    name: `${PREFIX}solver_wins_total`,
    help: 'Winning solutions, by network and solver',
    labelNames: ['network', 'solver'],
    ...family,
  });
  const settlements = new Counter({
    name: `${PREFIX}settlements_total`,
    help: "Winners' settlements by network, solver and outcome (submitted, mined, reverted, timedOut, simulationFailed, notSent)",
    labelNames: ['network', 'solver', 'outcome'],
    ...family,
  });
  const settlementGas = new Histogram({
    name: `${PREFIX}settlement_gas_used`,
    help: 'Gas used by mined settlements (reverted ones included), by network',
    labelNames: ['network'],
    buckets: GAS,
    ...family,
  });

  const rpcRequests = new Counter({
    name: `${PREFIX}rpc_requests_total`,
    help: 'JSON-RPC requests (batch entries each), by network and method',
    labelNames: ['network', 'method'],
    ...family,
  });
  const rpcErrors = new Counter({
    name: `${PREFIX}rpc_errors_total`,
    help: 'JSON-RPC requests that failed, by network, method and kind (rpc: an error answer, reverts included; transport: no answer)',
    labelNames: ['network', 'method', 'kind'],
    ...family,
  });
  const rpcTimes = new Histogram({
    name: `${PREFIX}rpc_request_duration_seconds`,
    help: 'Time to the answer of the HTTP request a JSON-RPC request went in, by network and method',
    labelNames: ['network', 'method'],
    buckets: RPC_SECONDS,
    ...family,
  });

  const deliveries = new Counter({
    name: `${PREFIX}deliveries_total`,
    help: 'Delivery attempts of notices and verification requests, by channel and outcome (delivered, retrying, failed)',
    labelNames: ['channel', 'outcome'],
    ...family,
  });

  return {
    registry,
    http: httpRequestMetrics(registry),
    observeReadYourWrites(projector, seconds, caughtUp) {
      waits.observe({ projector }, seconds);
      if (!caughtUp) waitTimeouts.inc({ projector });
    },
    countAutopilotReadModelTimeout(network) {
      autopilotTimeouts.inc({ network });
    },
    auctions: {
      cut(network, orders, filtered) {
        auctionsCut.inc({ network });
        auctionOrders.set({ network }, orders);
        // Reasons absent from this cut read 0, not the last cut's figure.
        for (const reason of reasonsSeen(network)) auctionFiltered.set({ network, reason }, 0);
        for (const [reason, n] of filtered) {
          auctionFiltered.set({ network, reason }, n);
          reasonsSeen(network).add(reason);
        }
      },
      solverAnswered(network, solver, outcome, seconds) {
        solverAnswers.inc({ network, solver, outcome });
        solveTimes.observe({ network, solver }, seconds);
      },
      won(network, solver) {
        wins.inc({ network, solver });
      },
      settlement(network, solver, outcome, gasUsed) {
        settlements.inc({ network, solver, outcome });
        if (gasUsed !== undefined) settlementGas.observe({ network }, Number(gasUsed));
      },
    },
    rpc: {
      answered(network, method, seconds, result) {
        rpcRequests.inc({ network, method });
        rpcTimes.observe({ network, method }, seconds);
        if (result !== 'ok') rpcErrors.inc({ network, method, kind: result });
      },
    },
    deliveries: {
      attempted(channel, outcome) {
        deliveries.inc({ channel, outcome });
      },
    },
  };
}
