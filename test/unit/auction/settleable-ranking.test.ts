/**
 * The winners' simulation before an auction is recorded: a winner that would revert gives way
 * to the runner-up, an order that cannot settle leaves the auction and the in-process solver
 * solves again without it, and the rounds are bounded.
 */
import { expect } from 'chai';
import type { Address, OrderUid, RankedSolution } from '../../../src/domain/events.js';
import type {
  ProposedSolution,
  RefereeAuction,
} from '../../../src/domain/referee/proposed-solution.js';
import {
  CHECK_ROUNDS,
  settleableRanking,
  type SettleChecks,
} from '../../../src/auction/settleable-ranking.js';
import { createLogger } from '../../../src/logger.js';
import { E18, WETH, order } from '../domain/solver/fixtures.js';

const A: Address = '0x000000000000000000000000000000000000000a';
const B: Address = '0x000000000000000000000000000000000000000b';
const C: Address = '0x000000000000000000000000000000000000000c';
const SOLVER: Address = '0x5050505050505050505050505050505050505050';
const logger = createLogger('silent');

/** Fill-or-kill sell orders of 100 atoms for at least 100. */
const [ab, ab2, cb] = [
  order(1, { sellToken: A, buyToken: B, sellAmount: 100n, buyAmount: 100n }),
  order(2, { sellToken: A, buyToken: B, sellAmount: 100n, buyAmount: 100n }),
  order(3, { sellToken: C, buyToken: B, sellAmount: 100n, buyAmount: 100n }),
];

const auction: RefereeAuction = {
  orders: [ab!, ab2!, cb!],
  nativePrices: new Map([A, B, C].map((t) => [t, E18])),
  wrappedNative: WETH,
};

/** `solver`'s solution filling the orders of one sell token for B, with `surplus` atoms each. */
function filling(solver: string, sellToken: Address, uids: OrderUid[], surplus: bigint) {
  return {
    solver,
    solverAddress: SOLVER,
    solutionId: 0,
    clearingPrices: new Map([
      [sellToken, 100n + surplus],
      [B, 100n],
    ]),
    trades: uids.map((uid) => ({ uid, executedAmount: 100n, fee: 0n })),
    calls: { pre: [], intra: [], post: [] },
  } satisfies ProposedSolution;
}

const traded = (solution: RankedSolution) => solution.orders.map((o) => o.uid);
const winners = (ranked: RankedSolution[]) =>
  ranked.filter((s) => s.isWinner).map((s) => [s.solver, traded(s)]);

/** Checks under test control: which solutions revert, which orders have problems, and what was asked. */
function checks(options: {
  reverts: (solution: RankedSolution) => boolean;
  problems?: Record<OrderUid, string>;
  resolve?: (orders: readonly OrderUid[]) => ProposedSolution[];
}) {
  const asked = {
    simulated: [] as string[][],
    dropped: [] as string[],
    probed: [] as OrderUid[][],
    resolved: [] as OrderUid[][],
  };
  const TX = { from: SOLVER, to: SOLVER, input: '0x' as const };
  const resolve = options.resolve;
  const deps: SettleChecks = {
    wouldRevert: async (solution) => {
      asked.simulated.push(traded(solution));
      return options.reverts(solution) ? { reason: 'execution reverted', tx: TX } : null;
    },
    dropped: (proposed) => asked.dropped.push(proposed.solver),
    problems: async (trades) => {
      asked.probed.push(trades.map((t) => t.uid));
      return new Map(
        trades.flatMap((t) =>
          options.problems?.[t.uid] ? [[t.uid, options.problems[t.uid]!]] : [],
        ),
      );
    },
    resolver: resolve
      ? {
          name: 'builtin',
          solve: async (excluded) => {
            const left = auction.orders.map((o) => o.uid).filter((uid) => !excluded.has(uid));
            asked.resolved.push(left);
            return resolve(left);
          },
        }
      : null,
  };
  return { deps, asked };
}

describe('settleable ranking', () => {
  it('keeps winners that would settle, simulating only the winners, once', async () => {
    const { deps, asked } = checks({ reverts: () => false });
    const { solutions: ranked, excluded } = await settleableRanking(
      auction,
      [
        filling('x', A, [ab!.uid], 10n),
        filling('y', A, [ab!.uid], 5n),
        filling('y', C, [cb!.uid], 1n),
      ],
      deps,
      logger,
    );
    expect(winners(ranked)).to.deep.equal([
      ['x', [ab!.uid]],
      ['y', [cb!.uid]],
    ]);
    expect(ranked).to.have.length(3);
    expect(excluded.size).to.equal(0);
    expect(asked.simulated).to.have.deep.members([[ab!.uid], [cb!.uid]]);
    expect(asked.probed).to.deep.equal([]);
  });

  it('drops a winner that would revert and lets the runner-up on its pair win, ranks renumbered', async () => {
    const { deps, asked } = checks({ reverts: (s) => s.solver === 'x' });
    const { solutions: ranked, excluded } = await settleableRanking(
      auction,
      [filling('x', A, [ab!.uid, ab2!.uid], 10n), filling('y', A, [ab!.uid], 5n)],
      deps,
      logger,
    );
    expect(winners(ranked)).to.deep.equal([['y', [ab!.uid]]]);
    expect(ranked.map((s) => [s.solver, s.rank])).to.deep.equal([['y', 1]]);
    // The solver of the dropped winner is told.
    expect(asked.dropped).to.deep.equal(['x']);
    // Its orders were probed; none had a problem, so none left the auction.
    expect(asked.probed).to.deep.equal([[ab!.uid, ab2!.uid]]);
    expect(excluded.size).to.equal(0);
  });

  it('leaves an order that cannot settle out, and asks the in-process solver again without it', async () => {
    const bad = ab!.uid;
    const { deps, asked } = checks({
      reverts: (s) => traded(s).includes(bad),
      problems: { [bad]: 'InsufficientAllowance' },
      // Solves whatever of A is left, each order alone at a surplus of 8.
      resolve: (left) =>
        auction.orders
          .filter((o) => left.includes(o.uid) && o.sellToken === A)
          .map((o) => filling('builtin', A, [o.uid], 8n)),
    });
    const { solutions: ranked, excluded } = await settleableRanking(
      auction,
      [
        filling('builtin', A, [ab!.uid, ab2!.uid], 10n),
        // Another solver's solution trading the bad order loses it with the auction's order.
        filling('y', A, [bad], 9n),
      ],
      deps,
      logger,
    );
    expect(asked.resolved).to.deep.equal([[ab2!.uid, cb!.uid]]);
    expect(winners(ranked)).to.deep.equal([['builtin', [ab2!.uid]]]);
    expect(ranked.flatMap(traded)).to.not.include(bad);
    // Left out with why, for the auction to record as filtered.
    expect(Object.fromEntries(excluded)).to.deep.equal({ [bad]: 'InsufficientAllowance' });
  });

  it(`gives up simulating after ${CHECK_ROUNDS} rounds and returns the last ranking`, async () => {
    // Every solver keeps proposing one more solution that reverts, and no order has a problem.
    const proposals = Array.from({ length: CHECK_ROUNDS + 2 }, (_, i) =>
      filling(`s${i}`, A, [ab!.uid], BigInt(20 - i)),
    );
    const { deps, asked } = checks({ reverts: () => true });
    const { solutions: ranked } = await settleableRanking(auction, proposals, deps, logger);
    expect(asked.simulated).to.have.length(CHECK_ROUNDS);
    expect(winners(ranked)).to.deep.equal([[`s${CHECK_ROUNDS}`, [ab!.uid]]]);
  });
});
