/**
 * The competition of one auction (reference §6, steps 2–7): examples for each rule, then
 * properties of competitions between the built-in solver and fake solvers proposing altered
 * copies of its solutions.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import {
  DEFAULT_COMPETITION,
  runCompetition,
  type CompetitionOptions,
} from '../../../src/domain/referee/competition.js';
import type { Address, RankedSolution } from '../../../src/domain/events.js';
import { NATIVE_TOKEN_MARKER } from '../../../src/domain/networks.js';
import type { OrderTerms } from '../../../src/domain/order-terms.js';
import type { ProposedSolution } from '../../../src/domain/referee/proposed-solution.js';
import { score } from '../../../src/domain/referee/score.js';
import { solve } from '../../../src/domain/solver/solve.js';
import type { Solution, SolverAuction } from '../../../src/domain/solver/types.js';
import { remaining } from '../../../src/domain/trade-execution.js';
import { E18, WETH, auctionsOf, directedPairs, order, uid } from './solver/fixtures.js';

const token = (n: number): Address => `0x${n.toString(16).padStart(40, '0')}`;
const [A, B, C, D, E, F] = [0xa, 0xb, 0xc, 0xd, 0xe, 0xf].map(token) as [
  Address,
  Address,
  Address,
  Address,
  Address,
  Address,
];
const UNPRICED = token(0x99);
const ETH = NATIVE_TOKEN_MARKER;
const SOLVER: Address = '0x5050505050505050505050505050505050505050';

/** Fill-or-kill sell orders of 100 atoms for at least 100 atoms. */
const sell100 = (
  n: number,
  sellToken: Address,
  buyToken: Address,
  fields: Partial<OrderTerms> = {},
) => order(n, { sellToken, buyToken, sellAmount: 100n, buyAmount: 100n, ...fields });
const o = {
  ab: sell100(1, A, B),
  cd: sell100(2, C, D),
  ef: sell100(3, E, F),
  ba: sell100(4, B, A),
  ab2: sell100(5, A, B),
  toWeth: sell100(6, A, WETH),
  toEth: sell100(7, A, ETH),
  toUnpriced: sell100(8, A, UNPRICED),
  partial: sell100(9, C, D, { partiallyFillable: true, executed: 60n }),
  buy: order(10, { sellToken: E, buyToken: F, sellAmount: 120n, buyAmount: 100n, kind: 'buy' }),
};

/** Every token worth one native atom per atom: a surplus of s atoms scores s. */
const flat: SolverAuction = {
  id: 7,
  orders: Object.values(o),
  nativePrices: new Map([A, B, C, D, E, F, WETH, ETH].map((t) => [t, E18])),
  pools: [],
  wrappedNative: WETH,
};

const NO_CALLS = { pre: [], intra: [], post: [] };

/**
 * A solution of `solver` filling each order (100 atoms of one token for another) at prices that
 * earn it exactly the given surplus: 100 + s atoms of the buy token for its 100.
 */
function fills(solver: string, ...legs: [OrderTerms, bigint][]): ProposedSolution {
  const clearingPrices = new Map<Address, bigint>();
  for (const [leg, surplus] of legs) {
    clearingPrices.set(leg.sellToken, 100n + surplus);
    clearingPrices.set(leg.buyToken, 100n);
  }
  return {
    solver,
    solverAddress: SOLVER,
    solutionId: 0,
    clearingPrices,
    trades: legs.map(([leg]) => ({ uid: leg.uid, executedAmount: 100n, fee: 0n })),
    calls: NO_CALLS,
  };
}

/** The outcome in short: solver, score, winner, filtered out, reference score, by rank. */
const summary = (ranked: RankedSolution[]) =>
  ranked.map((r) => [r.solver, r.score, r.isWinner, r.filteredOut, r.referenceScore]);

describe('competition', () => {
  it('scores CIP-38 and reports each trade as the contract executes it', () => {
    const interactions = [{ target: SOLVER, value: '0', callData: '0x1234' as const }];
    const proposed: ProposedSolution = {
      solver: 'builtin',
      solverAddress: '0x00000000000000000000000000000000000000aa',
      solutionId: 7,
      // A sells at 107/100: 107 B for its 100 A, 7 over its limit.
      // The buy order pays 100 E for 100 F against a limit of 120: 20 E of surplus, worth
      // 20 · 100/120 = 16 F at its limit price.
      clearingPrices: new Map([
        [A, 107n],
        [B, 100n],
        [E, 5n],
        [F, 5n],
      ]),
      trades: [
        { uid: o.ab.uid, executedAmount: 100n, fee: 0n },
        { uid: o.buy.uid, executedAmount: 100n, fee: 0n },
      ],
      calls: { pre: [], intra: interactions, post: [] },
    };
    const [only, ...none] = runCompetition(flat, [proposed]);
    expect(none).to.deep.equal([]);
    expect(only).to.deep.equal({
      solver: 'builtin',
      solverAddress: '0x00000000000000000000000000000000000000aa',
      solutionId: 7,
      score: '23',
      rank: 1,
      isWinner: true,
      filteredOut: false,
      // Without its one solver, the competition has no winner.
      referenceScore: '0',
      clearingPrices: { [A]: '107', [B]: '100', [E]: '5', [F]: '5' },
      orders: [
        {
          uid: o.ab.uid,
          sellToken: A,
          buyToken: B,
          executedAmount: '100',
          sellAmount: '100',
          buyAmount: '107',
          fee: '0',
        },
        {
          uid: o.buy.uid,
          sellToken: E,
          buyToken: F,
          executedAmount: '100',
          sellAmount: '100',
          buyAmount: '100',
          fee: '0',
        },
      ],
      preInteractions: [],
      interactions,
      postInteractions: [],
    });
    // Scaled by the native prices: B at 2e18 doubles the sell order's part.
    const dear = { ...flat, nativePrices: new Map([...flat.nativePrices, [B, 2n * E18]]) };
    expect(runCompetition(dear, [proposed])[0]!.score).to.equal('30');
  });

  it('reports a partial fill by its executed amount, a buy order in buy atoms', () => {
    const partial: ProposedSolution = {
      ...fills('p'),
      clearingPrices: new Map([
        [C, 3n],
        [D, 2n],
        [E, 6n],
        [F, 5n],
      ]),
      trades: [
        { uid: o.partial.uid, executedAmount: 40n, fee: 0n },
        { uid: o.buy.uid, executedAmount: 100n, fee: 0n },
      ],
    };
    const [ranked] = runCompetition(flat, [partial]);
    expect(ranked!.orders).to.deep.equal([
      // 40 C at 3/2: 60 D, 20 over the limit.
      {
        uid: o.partial.uid,
        sellToken: C,
        buyToken: D,
        executedAmount: '40',
        sellAmount: '40',
        buyAmount: '60',
        fee: '0',
      },
      // 100 F at 5/6 E each: 83 E (rounded down), 37 E under the limit of 120: 37·100/120 = 30 F.
      {
        uid: o.buy.uid,
        sellToken: E,
        buyToken: F,
        executedAmount: '100',
        sellAmount: '83',
        buyAmount: '100',
        fee: '0',
      },
    ]);
    expect(ranked!.score).to.equal('50');
  });

  it('takes a solver’s fee from the trader: sold with the fee, scored without its worth', () => {
    // The partial order sells 40 C, 4 of them the solver's fee: 36 C at 3/2 buy 54 D. Its limit
    // is 1 D per C: the 40 C paid owed 40 D, so 14 D of surplus (20 without the fee).
    const withFee: ProposedSolution = {
      ...fills('p'),
      clearingPrices: new Map([
        [C, 3n],
        [D, 2n],
      ]),
      trades: [{ uid: o.partial.uid, executedAmount: 36n, fee: 4n }],
    };
    const [ranked] = runCompetition(flat, [withFee]);
    expect(ranked!.orders).to.deep.equal([
      {
        uid: o.partial.uid,
        sellToken: C,
        buyToken: D,
        executedAmount: '40',
        sellAmount: '40',
        buyAmount: '54',
        fee: '4',
      },
    ]);
    expect(ranked!.score).to.equal('14');
    // A fill-or-kill order fills whole with the fee: 95 A and a fee of 5 make its 100.
    const whole = {
      ...fills('w', [o.ab, 7n]),
      trades: [{ uid: o.ab.uid, executedAmount: 95n, fee: 5n }],
    };
    expect(runCompetition(flat, [whole])[0]!.orders[0]).to.include({
      executedAmount: '100',
      sellAmount: '100',
    });
    const short = { ...whole, trades: [{ uid: o.ab.uid, executedAmount: 95n, fee: 4n }] };
    expect(runCompetition(flat, [short])).to.deep.equal([]);
  });

  it('drops solutions the contract would refuse or that cannot be scored', () => {
    const filledBefore = { ...o.ab2, executed: 100n };
    const auction = { ...flat, orders: [...flat.orders.filter((x) => x !== o.ab2), filledBefore] };
    const good = fills('good', [o.ab, 5n]);
    const trade = (leg: OrderTerms, executedAmount: bigint) => ({
      uid: leg.uid,
      executedAmount,
      fee: 0n,
    });
    const bad: Record<string, ProposedSolution> = {
      'no trades': { ...good, trades: [] },
      'an order not in the auction': {
        ...good,
        trades: [{ uid: uid(99), executedAmount: 100n, fee: 0n }],
      },
      'the same order twice': { ...good, trades: [trade(o.ab, 100n), trade(o.ab, 100n)] },
      'a fill-or-kill order in part': { ...good, trades: [trade(o.ab, 99n)] },
      'a fill-or-kill order filled before': fills('x', [filledBefore, 5n]),
      'beyond what is left of a partial order': {
        ...fills('x', [o.partial, 1n]),
        trades: [trade(o.partial, 41n)],
      },
      'a partial fill of nothing': {
        ...fills('x', [o.partial, 1n]),
        trades: [trade(o.partial, 0n)],
      },
      'prices below the limit': fills('x', [o.ab, -1n]),
      'a traded token without a price': { ...good, clearingPrices: new Map([[A, 105n]]) },
      'a traded token priced zero': {
        ...good,
        clearingPrices: new Map([
          [A, 0n],
          [B, 100n],
        ]),
      },
      'a surplus token without a native price': fills('x', [o.toUnpriced, 5n]),
    };
    for (const [why, solution] of Object.entries(bad)) {
      const ranked = runCompetition(auction, [{ ...solution, solver: 'bad' }, good]);
      expect(
        ranked.map((r) => [r.solver, r.score]),
        why,
      ).to.deep.equal([['good', '5']]);
    }
    // A solution at exactly the limit price scores zero and is kept, and can win.
    expect(summary(runCompetition(flat, [fills('zero', [o.ab, 0n])]))).to.deep.equal([
      ['zero', '0', true, false, '0'],
    ]);
  });

  it('takes at most three solutions per solver name, the first ones proposed', () => {
    const proposed = [
      fills('alpha', [o.ab, 1n]),
      // The allowance is spent before validity is checked: this one counts, then drops.
      { ...fills('alpha', [o.ab, 2n]), trades: [] },
      { ...fills('alpha', [o.cd, 3n]), solverAddress: token(0x1234) },
      fills('beta', [o.ab, 4n]),
      fills('alpha', [o.ef, 50n]),
      fills('beta', [o.cd, 6n]),
    ];
    expect(runCompetition(flat, proposed).map((r) => [r.solver, r.score])).to.deep.equal([
      ['beta', '6'],
      ['beta', '4'],
      ['alpha', '3'],
      ['alpha', '1'],
    ]);
    const one: CompetitionOptions = { ...DEFAULT_COMPETITION, maxSolutionsPerSolver: 1 };
    expect(runCompetition(flat, proposed, one).map((r) => [r.solver, r.score])).to.deep.equal([
      ['beta', '4'],
      ['alpha', '1'],
    ]);
  });

  it('filters out a several-pair solution scoring below a single-pair baseline on one pair', () => {
    // m: 10 on A/B + 20 on C/D = 30. Baselines: A/B 20 (s), C/D 15 (t).
    const m = fills('m', [o.ab, 10n], [o.cd, 20n]);
    const s = fills('s', [o.ab2, 20n]);
    const t = fills('t', [o.cd, 15n]);
    // Without s, m is fair and wins alone: 30. Without t, s and m are as before: 20.
    expect(summary(runCompetition(flat, [m, s, t]))).to.deep.equal([
      ['s', '20', true, false, '30'],
      ['t', '15', true, false, '20'],
      ['m', '30', false, true, null],
    ]);
    // Equal to the baseline is not below it: m, the best, wins and takes both pairs.
    const s10 = fills('s', [o.ab2, 10n]);
    expect(summary(runCompetition(flat, [m, s10, t]))).to.deep.equal([
      ['m', '30', true, false, '25'],
      ['t', '15', false, false, null],
      ['s', '10', false, false, null],
    ]);
    // The baseline is the best single-pair score of the pair, not the first or the least.
    const s5 = fills('s5', [o.ab2, 5n]);
    expect(runCompetition(flat, [m, s5, s, t]).find((r) => r.solver === 'm')!.filteredOut).to.equal(
      true,
    );
    // Single-pair solutions are never filtered out, however they compare.
    expect(summary(runCompetition(flat, [s5, s]))).to.deep.equal([
      ['s', '20', true, false, '5'],
      ['s5', '5', false, false, null],
    ]);
  });

  it('lets only the best of solutions sharing a directed pair win; the opposite direction is another pair', () => {
    const x = fills('x', [o.ab, 5n]);
    const y = fills('y', [o.ab2, 8n]);
    const z = fills('z', [o.ba, 1n]);
    expect(summary(runCompetition(flat, [x, y, z]))).to.deep.equal([
      ['y', '8', true, false, '6'],
      ['z', '1', true, false, '8'],
      ['x', '5', false, false, null],
    ]);
    // Equal scores: the one proposed first wins (the caller shuffles for a random pick).
    const x8 = fills('x', [o.ab, 8n]);
    expect(runCompetition(flat, [x8, y]).map((r) => r.solver)).to.deep.equal(['x', 'y']);
    expect(runCompetition(flat, [y, x8]).map((r) => r.solver)).to.deep.equal(['y', 'x']);
  });

  it('counts the native-token marker as the wrapped native token when pairs are taken', () => {
    const weth = fills('weth', [o.toWeth, 5n]);
    const eth = fills('eth', [o.toEth, 3n]);
    expect(summary(runCompetition(flat, [eth, weth]))).to.deep.equal([
      ['weth', '5', true, false, '3'],
      ['eth', '3', false, false, null],
    ]);
    // With another wrapped native token, A/WETH and A/ETH are different pairs.
    const elsewhere = { ...flat, wrappedNative: C };
    expect(runCompetition(elsewhere, [eth, weth]).map((r) => r.isWinner)).to.deep.equal([
      true,
      true,
    ]);
  });

  it('gives each winning solver the winners’ total without its solutions (CIP-67)', () => {
    const proposed = [
      fills('alpha', [o.ab, 30n]),
      fills('beta', [o.ab2, 20n]),
      fills('alpha', [o.cd, 25n]),
      fills('beta', [o.cd, 10n]),
      fills('beta', [o.ef, 7n]),
    ];
    // Without alpha: 20 + 10 + 7. Without beta: 30 + 25.
    expect(summary(runCompetition(flat, proposed))).to.deep.equal([
      ['alpha', '30', true, false, '37'],
      ['alpha', '25', true, false, '37'],
      ['beta', '7', true, false, '55'],
      ['beta', '20', false, false, null],
      ['beta', '10', false, false, null],
    ]);
  });

  it('runs the fairness filter again for a reference score', () => {
    // beta's several-pair solution falls below alpha's baseline on A/B; without alpha, it wins.
    const proposed = [fills('alpha', [o.ab, 20n]), fills('beta', [o.ab2, 10n], [o.cd, 30n])];
    expect(summary(runCompetition(flat, proposed))).to.deep.equal([
      ['alpha', '20', true, false, '40'],
      ['beta', '40', false, true, null],
    ]);
  });

  it('ranks winners first, then the others by score, then the filtered-out ones by score', () => {
    const w1 = fills('w1', [o.ab, 31n], [o.ef, 20n]);
    const x = fills('x', [o.ab2, 30n], [o.cd, 15n]);
    const w2 = fills('w2', [o.cd, 10n]);
    const y = fills('y', [o.ab, 3n]);
    // Below the C/D baseline of 10.
    const f1 = fills('f1', [o.ba, 100n], [o.cd, 5n]);
    const f2 = fills('f2', [o.ba, 1n], [o.cd, 2n]);
    const ranked = runCompetition(flat, [f2, y, f1, x, w2, w1]);
    expect(ranked.map((r) => [r.rank, r.solver, r.score, r.isWinner, r.filteredOut])).to.deep.equal(
      [
        [1, 'w1', '51', true, false],
        [2, 'w2', '10', true, false],
        // x scores more than w2 but shares A/B with w1.
        [3, 'x', '45', false, false],
        [4, 'y', '3', false, false],
        [5, 'f1', '105', false, true],
        [6, 'f2', '3', false, true],
      ],
    );
    // At most `maxWinners` win; the others keep their order by score.
    const one = { ...DEFAULT_COMPETITION, maxWinners: 1 };
    expect(
      runCompetition(flat, [f2, y, f1, x, w2, w1], one).map((r) => [r.solver, r.isWinner]),
    ).to.deep.equal([
      ['w1', true],
      ['x', false],
      ['w2', false],
      ['y', false],
      ['f1', false],
      ['f2', false],
    ]);
  });
});

/** A built-in solution as it enters the competition. */
const proposal = (solver: string, solution: Solution): ProposedSolution => ({
  solver,
  solverAddress: SOLVER,
  solutionId: 0,
  clearingPrices: solution.clearingPrices,
  trades: solution.trades.map((trade) => ({ ...trade, fee: 0n })),
  calls: NO_CALLS,
});

/**
 * What a fake solver proposes: an altered copy of a built-in solution (most alterations make
 * some invalid), or, past the built-in ones, a fresh solution filling some of the auction's
 * orders at the native prices moved by a few percent per token.
 */
const fake = fc.record({
  solver: fc.constantFrom('alpha', 'beta', 'gamma'),
  base: fc.nat(),
  kind: fc.constantFrom('copy', 'price', 'subset', 'pair', 'merge', 'halve'),
  pick: fc.nat(),
  percent: fc.integer({ min: 80, max: 125 }),
  jitter: fc.array(fc.integer({ min: 90, max: 115 }), { minLength: 4, maxLength: 4 }),
  orders: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
});

type Fake = typeof fake extends fc.Arbitrary<infer T> ? T : never;

function fresh(auction: SolverAuction, f: Fake): ProposedSolution {
  const n = auction.orders.length;
  const chosen = auction.orders.filter((_, i) => f.orders.some((k) => k % n === i));
  // Each order in turn prices what is not priced yet at its limit moved by its jitter: from 10%
  // short of the limit (invalid) to 15% better.
  const prices = new Map<Address, bigint>();
  for (const [i, x] of chosen.entries()) {
    const up = BigInt(f.jitter[i % f.jitter.length]!);
    const [ps, pb] = [prices.get(x.sellToken), prices.get(x.buyToken)];
    if (ps === undefined && pb === undefined) {
      prices.set(x.sellToken, x.buyAmount * up);
      prices.set(x.buyToken, x.sellAmount * 100n);
    } else if (ps === undefined) {
      prices.set(x.sellToken, (x.buyAmount * pb! * up) / (x.sellAmount * 100n) + 1n);
    } else if (pb === undefined) {
      prices.set(x.buyToken, (x.sellAmount * ps * 100n) / (x.buyAmount * up) + 1n);
    }
  }
  return {
    solver: f.solver,
    solverAddress: SOLVER,
    clearingPrices: prices,
    solutionId: 0,
    trades: chosen.map((x) => ({
      uid: x.uid,
      executedAmount: x.partiallyFillable
        ? (remaining(x) * BigInt(f.percent - 25)) / 100n
        : remaining(x),
      fee: 0n,
    })),
    calls: NO_CALLS,
  };
}

function alter(auction: SolverAuction, solutions: readonly Solution[], f: Fake): ProposedSolution {
  const index = f.base % (solutions.length + 1);
  if (index === solutions.length) return fresh(auction, f);
  const base = proposal(f.solver, solutions[index]!);
  const tokens = [...base.clearingPrices.keys()];
  switch (f.kind) {
    case 'copy':
      return base;
    case 'price': {
      const moved = tokens[f.pick % tokens.length]!;
      const prices = new Map(base.clearingPrices);
      prices.set(moved, (prices.get(moved)! * BigInt(f.percent)) / 100n);
      return { ...base, clearingPrices: prices };
    }
    case 'subset':
      return { ...base, trades: base.trades.filter((_, i) => ((f.pick >> i) & 1) === 1) };
    case 'pair': {
      // One directed pair of the solution alone, its sell token's price moved: up, every one of
      // its trades gains, and a solution of several pairs may now fall below it.
      const orderOf = (uid: string) => auction.orders.find((candidate) => candidate.uid === uid)!;
      const pairs = [...new Set(base.trades.map((trade) => orderOf(trade.uid).sellToken))];
      const sold = pairs[f.pick % pairs.length]!;
      const kept = base.trades.filter((trade) => orderOf(trade.uid).sellToken === sold);
      const bought = orderOf(kept[0]!.uid).buyToken;
      return {
        ...base,
        clearingPrices: new Map([
          [sold, (base.clearingPrices.get(sold)! * BigInt(f.percent)) / 100n],
          [bought, base.clearingPrices.get(bought)!],
        ]),
        trades: kept.filter((trade) => orderOf(trade.uid).buyToken === bought),
      };
    }
    case 'merge': {
      const other = solutions[f.pick % solutions.length]!;
      return {
        ...base,
        clearingPrices: new Map([...other.clearingPrices, ...base.clearingPrices]),
        trades: [...base.trades, ...other.trades.map((trade) => ({ ...trade, fee: 0n }))],
      };
    }
    case 'halve':
      return {
        ...base,
        trades: base.trades.map((trade) => ({
          ...trade,
          executedAmount: trade.executedAmount / 2n,
        })),
      };
  }
}

/** Random auctions, the built-in solver's solutions, and fake solvers' proposals, shuffled. */
const competitions = auctionsOf(3).chain((auction) => {
  const builtin = solve(auction);
  const fakes = fc
    .array(fake, { minLength: 2, maxLength: 10 })
    .map((fs) => fs.map((f) => alter(auction, builtin, f)));
  return fc
    .tuple(
      fakes,
      fc.oneof(fc.constant(DEFAULT_COMPETITION.maxWinners), fc.integer({ min: 1, max: 3 })),
    )
    .chain(([altered, maxWinners]) => {
      const all = [...builtin.map((s) => proposal('builtin', s)), ...altered];
      return fc
        .shuffledSubarray(all, { minLength: all.length, maxLength: all.length })
        .map((proposed) => ({ auction, builtin, proposed, maxWinners }));
    });
});

/** The ranked solution back in the solver's terms. */
const asPriced = (ranked: RankedSolution) => ({
  clearingPrices: new Map(
    Object.entries(ranked.clearingPrices).map(([t, p]) => [t as Address, BigInt(p)]),
  ),
  trades: ranked.orders.map((x) => ({ uid: x.uid, executedAmount: BigInt(x.executedAmount) })),
});

function ordersOf(auction: SolverAuction, ranked: RankedSolution): OrderTerms[] {
  return ranked.orders.map((x) => auction.orders.find((candidate) => candidate.uid === x.uid)!);
}

/** Directed pairs with the native-token marker as the wrapped native token. */
function swapped(auction: SolverAuction, ranked: RankedSolution): Set<string> {
  const erc20 = (t: Address) => (t === ETH ? auction.wrappedNative : t);
  return new Set(
    ordersOf(auction, ranked).map((x) => `${erc20(x.sellToken)}/${erc20(x.buyToken)}`),
  );
}

const options = (maxWinners: number) => ({ ...DEFAULT_COMPETITION, maxWinners });
const total = (ranked: RankedSolution[]) =>
  ranked.filter((r) => r.isWinner).reduce((a, r) => a + BigInt(r.score), 0n);

interface Case {
  auction: SolverAuction;
  builtin: Solution[];
  proposed: ProposedSolution[];
  maxWinners: number;
}

/**
 * Ranks 1..n: the winners, then the other considered solutions, then the filtered-out ones, each
 * group by score. No winner is filtered out, no two share a pair, and a considered solution that
 * lost did so to a winner at least as good sharing a pair with it, or because the winners were
 * complete.
 */
function assertRanking({ auction, maxWinners }: Case, ranked: RankedSolution[]) {
  expect(ranked.map((r) => r.rank)).to.deep.equal(ranked.map((_, i) => i + 1));
  const winners = ranked.filter((r) => r.isWinner);
  expect(winners.length).to.be.at.most(maxWinners);
  const groups = [
    winners,
    ranked.filter((r) => !r.isWinner && !r.filteredOut),
    ranked.filter((r) => r.filteredOut),
  ];
  expect(groups.flat()).to.deep.equal(ranked);
  for (const group of groups) {
    for (const [i, r] of group.slice(1).entries()) {
      expect(BigInt(r.score) <= BigInt(group[i]!.score), 'by score').to.equal(true);
    }
  }
  const taken = new Set<string>();
  for (const w of winners) {
    expect(w.filteredOut).to.equal(false);
    for (const pair of swapped(auction, w)) {
      expect(taken.has(pair), `${pair} taken once`).to.equal(false);
      taken.add(pair);
    }
  }
  for (const loser of groups[1]!) {
    if (winners.length === maxWinners) continue;
    const pairs = swapped(auction, loser);
    expect(
      winners.some(
        (w) =>
          BigInt(w.score) >= BigInt(loser.score) &&
          [...swapped(auction, w)].some((p) => pairs.has(p)),
      ),
      'blocked by a better winner',
    ).to.equal(true);
  }
}

/** Winners carry their solver's reference score: the winners' total without its solutions. */
function assertReferenceScores({ auction, proposed, maxWinners }: Case, ranked: RankedSolution[]) {
  for (const r of ranked) {
    if (!r.isWinner) {
      expect(r.referenceScore).to.equal(null);
      continue;
    }
    const without = proposed.filter((p) => p.solver !== r.solver);
    expect(r.referenceScore).to.equal(
      total(runCompetition(auction, without, options(maxWinners))).toString(),
    );
  }
}

/** Filtered out exactly: several pairs, one of them below the best single-pair score on it. */
function assertFairness({ auction }: Case, ranked: RankedSolution[]) {
  const pairs = ranked.map((r) => directedPairs(asPriced(r), auction));
  expect(ranked.map((r) => BigInt(r.score))).to.deep.equal(
    pairs.map((p) => [...p.values()].reduce((a, b) => a + b, 0n)),
  );
  for (const [i, r] of ranked.entries()) {
    const own = pairs[i]!;
    const below =
      own.size > 1 &&
      pairs.some(
        (single) =>
          single.size === 1 &&
          [...single].every(([pair, value]) => own.has(pair) && value > own.get(pair)!),
      );
    expect(r.filteredOut, `rank ${r.rank}`).to.equal(below);
  }
}

/**
 * Every built-in solution is kept (at most three, each sound, each with a score), no fake solver
 * has more than three, and every trade kept is one the contract executes: an auction order,
 * once, at the clearing prices, at its limit price or better, within what is left of it.
 */
function assertTrades({ auction, builtin, proposed }: Case, ranked: RankedSolution[]) {
  expect(ranked.length).to.be.at.most(proposed.length);
  expect(ranked.filter((r) => r.solver === 'builtin').map((r) => r.score)).to.have.members(
    builtin.map((s) => score(s, auction)!.toString()),
  );
  for (const solver of ['alpha', 'beta', 'gamma']) {
    expect(ranked.filter((r) => r.solver === solver).length).to.be.at.most(3);
  }
  for (const r of ranked) {
    expect(r.orders.length).to.be.greaterThan(0);
    expect(new Set(r.orders.map((x) => x.uid)).size).to.equal(r.orders.length);
    for (const [i, x] of ordersOf(auction, r).entries()) {
      const done = r.orders[i]!;
      const [sold, bought] = [BigInt(done.sellAmount), BigInt(done.buyAmount)];
      const [ps, pb] = [
        BigInt(r.clearingPrices[x.sellToken]!),
        BigInt(r.clearingPrices[x.buyToken]!),
      ];
      expect(ps > 0n && pb > 0n, 'priced').to.equal(true);
      // At the limit price or better: sold/bought ≤ sellAmount/buyAmount.
      expect(sold * x.buyAmount <= bought * x.sellAmount, 'limit').to.equal(true);
      // At the clearing prices, rounded in the trader's favour.
      expect(sold * ps <= bought * pb, 'clearing price').to.equal(true);
      const amount = BigInt(done.executedAmount);
      expect(amount).to.equal(x.kind === 'sell' ? sold : bought);
      const full = x.kind === 'sell' ? x.sellAmount : x.buyAmount;
      const filled = x.executed;
      expect(amount > 0n && filled + amount <= full, 'within what is left').to.equal(true);
      if (!x.partiallyFillable) expect(amount).to.equal(full);
    }
  }
}

describe('competition properties (built-in and fake solvers, random auctions)', () => {
  it('ranks winners first, on disjoint pairs, each beating what it blocks, with reference scores', () => {
    fc.assert(
      fc.property(competitions, (c) => {
        const ranked = runCompetition(c.auction, c.proposed, options(c.maxWinners));
        expect(runCompetition(c.auction, c.proposed, options(c.maxWinners))).to.deep.equal(
          ranked,
          'deterministic',
        );
        assertRanking(c, ranked);
        assertReferenceScores(c, ranked);
      }),
      { numRuns: 100 },
    );
  });

  it('filters out exactly the unfair solutions and keeps only sound trades within their limits', () => {
    fc.assert(
      fc.property(competitions, (c) => {
        const ranked = runCompetition(c.auction, c.proposed);
        assertFairness(c, ranked);
        assertTrades(c, ranked);
      }),
      { numRuns: 100 },
    );
  });
});
