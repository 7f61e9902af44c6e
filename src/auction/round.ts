/**
 * One round of an auction's competition (reference §6): the auction sent to every solver in the
 * published solver engine API, each answer taken in by the driver (`solution-intake.ts`), the
 * referee's ranking of what was taken, its winners simulated before they are recorded
 * (`settleable-ranking.ts`), and every solver told what the driver knows of its solutions.
 */
import type { Logger } from 'pino';
import type { OfferedPool } from '../chain/prices.js';
import type { TokenFacts, TokenFactsReader } from '../chain/token-facts.js';
import type { Address, AuctionOrder, OrderUid } from '../domain/events.js';
import { NATIVE_TOKEN_MARKER, type Network } from '../domain/networks.js';
import type { OrderTerms } from '../domain/order-terms.js';
import { rankProposals } from '../domain/referee/competition.js';
import type { ProposedSolution, RefereeAuction } from '../domain/referee/proposed-solution.js';
import type { AuctionObserver, SolverAnswerOutcome } from './observer.js';
import { askSolvers } from './collect.js';
import type { CutAuction } from './cut.js';
import type { SettlementDriver } from './driver.js';
import { orderProblems, type OrderProbeChecks, type OrderProblem } from './order-probe.js';
import { settleableRanking, type SettleableRanking } from './settleable-ranking.js';
import { auctionFor } from './solver-api/auction.js';
import type { Auction, NotificationKind, SolverAnswer } from './solver-api/types.js';
import { takeIn, type IntakeContext } from './solution-intake.js';
import type { Solver } from './solver.js';
import { BUILTIN_SOLVER_NAME } from './builtin-solver.js';
import { timedStep } from '../metrics/stage-timings.js';

export interface RoundDeps {
  network: Network;
  solvers: readonly Solver[];
  /** Null: winners are never sent, so none is simulated. */
  driver: SettlementDriver | null;
  orderChecks: OrderProbeChecks;
  /** Tokens the network's solvers may hold in the settlement contract's buffers (CIP-2). */
  trusted: ReadonlySet<Address>;
  solveTimeoutMs: number;
  clock: () => Date;
  logger: Logger;
  observer: AuctionObserver;
}

/** What the chain says around the cut: the pools, each token's facts, the gas price. */
export interface Market {
  pools: readonly OfferedPool[];
  tokens: ReadonlyMap<Address, TokenFacts>;
  effectiveGasPrice: bigint;
}

/** Where a round's market is read from. */
export interface MarketSources {
  /** The pools between any two of the tokens and the wrapped native token, at `block`. */
  pools(tokens: readonly Address[], block: number): Promise<OfferedPool[]>;
  tokenFacts: TokenFactsReader;
  /** The wei per gas a settlement is expected to pay now (`block` being the current one). */
  gasPrice(block: number): Promise<bigint>;
}

/** The market of the orders' tokens at `block` (the cut's, or the current one for a quote). */
export async function readMarket(
  sources: MarketSources,
  network: Network,
  cut: Pick<CutAuction, 'orders'>,
  block: number,
): Promise<Market> {
  const wrapped = network.wrappedNativeToken.toLowerCase() as Address;
  const pools = await sources.pools(marketTokens(cut, [], wrapped), block);
  const [tokens, effectiveGasPrice] = await Promise.all([
    sources.tokenFacts.read(marketTokens(cut, pools, wrapped), network.settlementContract, block),
    sources.gasPrice(block),
  ]);
  return { pools, tokens, effectiveGasPrice };
}

/** The tokens solvers are told about: the orders' (the wrapped one for native ETH) and the pools'. */
export function marketTokens(
  cut: Pick<CutAuction, 'orders'>,
  pools: readonly OfferedPool[],
  wrapped: Address,
): Address[] {
  const tokens = new Set<Address>();
  for (const order of cut.orders) {
    tokens.add(order.sellToken);
    tokens.add(order.buyToken);
  }
  for (const pool of pools) {
    tokens.add(pool.token0);
    tokens.add(pool.token1);
  }
  if (tokens.delete(NATIVE_TOKEN_MARKER)) tokens.add(wrapped);
  return [...tokens];
}

/** What a round is made of: the auction solvers are sent, the referee's view, the driver's. */
export interface RoundSetup {
  auction: Auction;
  referee: RefereeAuction;
  intake: IntakeContext;
}

export function roundSetup(
  network: Network,
  /** Null for a quote. */
  id: number | null,
  cut: Pick<CutAuction, 'orders' | 'solverOrders' | 'prices'>,
  market: Market,
  trusted: ReadonlySet<Address>,
  deadline: Date,
): RoundSetup {
  const wrappedNative = network.wrappedNativeToken.toLowerCase() as Address;
  const liquidity = market.pools.map((pool, i) => ({ id: String(i), pool }));
  return {
    auction: auctionFor({
      id,
      deadline,
      orders: cut.orders,
      referencePrices: cut.prices,
      tokens: market.tokens,
      trusted,
      liquidity,
      effectiveGasPrice: market.effectiveGasPrice,
      wrappedNative,
    }),
    referee: {
      orders: cut.solverOrders,
      nativePrices: new Map(
        Object.entries(cut.prices).map(([token, price]) => [token as Address, BigInt(price)]),
      ),
      wrappedNative,
    },
    intake: intakeContext(network, cut.orders, cut.solverOrders, liquidity, market),
  };
}

export async function runRound(
  deps: RoundDeps,
  id: number,
  cut: CutAuction,
  market: Market,
): Promise<SettleableRanking<OrderProblem>> {
  const { driver } = deps;
  // The solvers' time starts when they are asked: the cut's and the market's chain reads before
  // it may take a while on a live node, and must not eat into it.
  const deadline = new Date(deps.clock().getTime() + deps.solveTimeoutMs);
  const {
    auction,
    referee,
    intake: context,
  } = timedStep('auction: round setup', () =>
    roundSetup(deps.network, id, cut, market, deps.trusted, deadline),
  );
  const logger = deps.logger.child({ auction: id });
  const tell = (solver: Solver, solutionId: number | null, feedback: NotificationKind) =>
    solver.notify({ ...feedback, auctionId: String(id), solutionId });
  const intake = (solver: Solver, answer: SolverAnswer) =>
    timedStep('auction: intake', () => takeAnswer(solver, answer, context, logger, tell));

  const outcomes = await askSolvers(deps.solvers, auction, deps.solveTimeoutMs);
  const answered = (solver: Solver, outcome: SolverAnswerOutcome, seconds: number) =>
    deps.observer.solverAnswered(deps.network.name, solver.name, outcome, seconds);
  const proposed = outcomes.flatMap((outcome, i) => {
    const solver = deps.solvers[i]!;
    if ('answer' in outcome) {
      const taken = intake(solver, outcome.answer);
      answered(solver, answerOutcome(outcome.answer, taken), outcome.seconds);
      return taken;
    }
    answered(solver, outcome.failure.kind, outcome.seconds);
    logger.warn({ solver: solver.name, err: outcome.failure }, 'solver gave no answer');
    if (outcome.failure.kind === 'timeout') tell(solver, null, { kind: 'timeout' });
    return [];
  });
  if (driver === null)
    return {
      solutions: timedStep('auction: ranking', () => rankProposals(referee, proposed)).map(
        ({ solution }) => solution,
      ),
      excluded: new Map(),
    };

  const byName = new Map(deps.solvers.map((solver) => [solver.name, solver]));
  const orders = new Map(cut.orders.map((order) => [order.uid, order]));
  const builtin = byName.get(BUILTIN_SOLVER_NAME);
  return settleableRanking(
    referee,
    proposed,
    {
      wouldRevert: (solution) => driver.wouldRevert(id, cut.orders, solution),
      dropped: (solution, revert) =>
        tell(byName.get(solution.solver)!, solution.solutionId, {
          kind: 'simulationFailed',
          block: cut.block,
          tx: { ...revert.tx, value: '0', accessList: [] },
          succeededOnce: false,
        }),
      problems: (trades) => orderProblems(deps.orderChecks, orders, trades, logger),
      resolver: builtin
        ? {
            name: builtin.name,
            solve: async (excluded) =>
              intake(
                builtin,
                await builtin.solve(
                  withoutOrders(auction, excluded),
                  AbortSignal.timeout(deps.solveTimeoutMs),
                ),
              ),
          }
        : null,
    },
    logger,
  );
}

function intakeContext(
  network: Network,
  orders: readonly AuctionOrder[],
  terms: readonly OrderTerms[],
  liquidity: readonly { id: string; pool: OfferedPool }[],
  market: Market,
): IntakeContext {
  const termsOf = new Map(terms.map((t) => [t.uid, t]));
  return {
    orders: new Map(orders.map((order) => [order.uid, { order, terms: termsOf.get(order.uid)! }])),
    liquidity: new Map(liquidity.map(({ id, pool }) => [id, pool])),
    settlement: network.settlementContract,
    vaultRelayer: network.vaultRelayer,
    wrappedNative: network.wrappedNativeToken.toLowerCase() as Address,
    availableBalances: new Map(
      [...market.tokens].map(([token, facts]) => [token, facts.availableBalance]),
    ),
  };
}

/** An answer's outcome: solutions taken in, none proposed, or all of them refused. */
function answerOutcome(
  answer: SolverAnswer,
  taken: readonly ProposedSolution[],
): SolverAnswerOutcome {
  if ('error' in answer) return 'error';
  if (answer.solutions.length === 0) return 'empty';
  return taken.length === 0 ? 'refused' : 'solutions';
}

/** One solver's answer taken in: its sound solutions; the others logged, and the solver told. */
export function takeAnswer(
  solver: Solver,
  answer: SolverAnswer,
  context: IntakeContext,
  logger: Logger,
  tell: (solver: Solver, solutionId: number | null, feedback: NotificationKind) => void,
): ProposedSolution[] {
  if ('error' in answer) {
    logger.warn({ solver: solver.name, ...answer.error }, 'solver answered with an error');
    return [];
  }
  const ids = new Set<number>();
  return answer.solutions.flatMap((solution) => {
    if (ids.has(solution.id)) {
      logger.warn(
        { solver: solver.name, solution: solution.id },
        'solution id used twice: left out',
      );
      tell(solver, solution.id, { kind: 'duplicatedSolutionId' });
      return [];
    }
    ids.add(solution.id);
    const taken = takeIn(solver, solution, context);
    if ('proposed' in taken) return [taken.proposed];
    logger.warn(
      { solver: solver.name, solution: solution.id, reason: taken.refused },
      'solution refused',
    );
    if (taken.feedback) tell(solver, solution.id, taken.feedback);
    return [];
  });
}

function withoutOrders(auction: Auction, excluded: ReadonlySet<OrderUid>): Auction {
  return { ...auction, orders: auction.orders.filter((order) => !excluded.has(order.uid)) };
}
