import { expect } from 'chai';
import { programSolver } from '../../../../src/auction/linear-programs.js';
import type { Address } from '../../../../src/domain/events.js';
import type { OrderTerms } from '../../../../src/domain/order-terms.js';
import { score } from '../../../../src/domain/referee/score.js';
import type { LinearProgram, ProgramSolver } from '../../../../src/domain/solver/linear-program.js';
import { relaxAndFix } from '../../../../src/domain/solver/price-search.js';
import { solve } from '../../../../src/domain/solver/solve.js';
import { checkSolution } from '../../../../src/domain/solver/execution.js';
import { DDAI, DUSD, E18, T4, WETH, devnetPool, order } from './fixtures.js';

/** WETH at 1, DUSD and DDAI at 1/3000, T4 at 1/10 of a native token. */
const NATIVE = new Map<Address, bigint>([
  [WETH, E18],
  [DUSD, E18 / 3000n],
  [DDAI, E18 / 3000n],
  [T4, E18 / 10n],
]);
const PER_ETH = new Map<Address, bigint>([
  [WETH, 1n],
  [DUSD, 3000n],
  [DDAI, 3000n],
  [T4, 10n],
]);

/** A sell order of `eth` native tokens' worth of `sell` asking `ask`% of the market in `buy`. */
function sellOrder(
  n: number,
  sell: Address,
  buy: Address,
  eth: bigint,
  ask: bigint,
  partial = true,
) {
  return order(n, {
    sellToken: sell,
    buyToken: buy,
    sellAmount: eth * PER_ETH.get(sell)! * E18,
    buyAmount: (eth * PER_ETH.get(buy)! * E18 * ask) / 100n,
    partiallyFillable: partial,
  });
}

/** An auction of `orders` at the native prices above, with the devnet pool to route through. */
const withDevnetPool = (orders: OrderTerms[]) => ({
  id: 1,
  orders,
  nativePrices: NATIVE,
  pools: [devnetPool],
  wrappedNative: WETH,
});

describe('solver with the optimizer', () => {
  let optimizer: ProgramSolver;
  before(async () => {
    optimizer = await programSolver();
  });

  it('settles a ring of four tokens with a sliver through a pool, where the pair-by-pair solver (rings of three) routes one order alone', () => {
    const ring = [WETH, DUSD, DDAI, T4];
    const orders: OrderTerms[] = ring.map((sell, i) =>
      sellOrder(i + 1, sell, ring[(i + 1) % 4]!, 2n, 98n),
    );
    const auction = withDevnetPool(orders);
    const [pairByPair] = solve(auction);
    expect(pairByPair!.trades.map((t) => t.uid)).to.deep.equal([orders[0]!.uid]);
    const [best] = solve(auction, undefined, optimizer);
    expect(best!.trades.map((t) => t.uid)).to.have.members(orders.map((o) => o.uid));
    const byUid = new Map(orders.map((o) => [o.uid, o]));
    const pools = new Map([[devnetPool.address, devnetPool]]);
    expect(checkSolution(best!, byUid, pools)).to.equal(null);
    // The uniform prices leave each leg at least its limit: 2 % of 2 native tokens each, less
    // what the pool's sliver costs.
    const value = score(best!, auction)!;
    expect(value > (15n * E18) / 100n && value > 3n * score(pairByPair!, auction)!).to.equal(true);
  });

  it('fills fill-or-kill orders of different pairs whole, balancing what is left through a pool', () => {
    // Two fill-or-kill orders into DUSD that no order sells: the pool gives the DUSD for the
    // WETH of the third order, which asks for DDAI the first sells.
    const orders = [
      sellOrder(1, DDAI, DUSD, 1n, 99n, false),
      sellOrder(2, WETH, DUSD, 1n, 98n, false),
      sellOrder(3, DUSD, DDAI, 1n, 99n, true),
    ];
    const auction = withDevnetPool(orders);
    const [best] = solve(auction, { slippageBps: 10n }, optimizer);
    const byUid = new Map(orders.map((o) => [o.uid, o]));
    expect(checkSolution(best!, byUid, new Map([[devnetPool.address, devnetPool]]))).to.equal(null);
    expect(best!.trades.map((t) => t.uid)).to.include.members([orders[0]!.uid, orders[1]!.uid]);
    expect(
      score(best!, auction)! >= score(solve(auction, { slippageBps: 10n })[0]!, auction)!,
    ).to.equal(true);
  });

  it('dives to whole values where the relaxation splits a whole column, keeping every row', () => {
    // A knapsack of 6: the relaxation takes the 4 and two thirds of a 3 (5.83); whole, the
    // answer must drop one of them.
    const program: LinearProgram = {
      columns: [
        { gain: 2, lower: 0, upper: 1, integer: true },
        { gain: 2, lower: 0, upper: 1, integer: true },
        { gain: 4.5, lower: 0, upper: 1, integer: true },
        { gain: 0.1, lower: 0, upper: 1, integer: false },
      ],
      rows: [
        {
          lower: -Infinity,
          upper: 6.5,
          terms: [
            [0, 3],
            [1, 3],
            [2, 4],
            [3, 1],
          ],
        },
      ],
    };
    const answer = relaxAndFix(optimizer, program)!;
    const values = [...answer.values];
    for (const whole of values.slice(0, 3)) expect([0, 1]).to.include(whole);
    expect(3 * values[0]! + 3 * values[1]! + 4 * values[2]! + values[3]!).to.be.at.most(6.5 + 1e-9);
    expect(answer.objective).to.be.at.least(4.5);
  });
});
