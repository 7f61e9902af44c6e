import { expect } from 'chai';
import fc from 'fast-check';
import { MAX_UINT256 } from '../../../src/domain/amounts.js';
import {
  POOL_HOP_GAS,
  SETTLEMENT_SINGLE_TRADE_GAS,
  amountIn,
  amountInAlong,
  amountOut,
  amountOutAlong,
  bestBuyRoute,
  bestSellRoute,
  candidatePaths,
  hopThrough,
  routeGas,
  routesAlong,
  sortTokens,
  type Hop,
  type Pool,
  type Route,
} from '../../../src/domain/amm.js';
import type { Address } from '../../../src/domain/events.js';

const E18 = 10n ** 18n;
const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2' as Address;
const DUSD = '0x0000000000000000000000000000000000000001' as Address;
const DDAI = '0xffffffffffffffffffffffffffffffffffffffff' as Address;

/** What a pair can hold: `UniswapV2Pair` keeps its reserves in uint112. */
const reserve = fc.bigInt({ min: 1n, max: (1n << 112n) - 1n });
const amount = fc.bigInt({ min: 1n, max: 1n << 128n });
const hop = fc.record({
  pool: fc.constant(WETH),
  reserveIn: reserve,
  reserveOut: reserve,
});

describe('amm', () => {
  describe('single pool arithmetic (UniswapV2Library)', () => {
    // Small figures worked by hand: out = 997·x·R_out / (1000·R_in + 997·x), rounded down;
    // in = 1000·R_in·y / (997·(R_out − y)), rounded down, plus one.
    it('computes amounts out', () => {
      // 997,000,000 / 1,997,000 = 499.25
      expect(amountOut(1000n, 1000n, 1000n)).to.equal(499n);
      // 99,700,000 / 1,099,700 = 90.66
      expect(amountOut(100n, 1000n, 1000n)).to.equal(90n);
      // 1 atom into an even pool rounds down to nothing.
      expect(amountOut(1n, 1000n, 1000n)).to.equal(0n);
      // 1 WETH into the devnet's WETH/DUSD pool (1,000 WETH : 3,000,000 DUSD), figured in Python.
      expect(amountOut(E18, 1000n * E18, 3_000_000n * E18)).to.equal(2988020943119709649479n);
    });

    it('computes amounts in', () => {
      // 499,000,000 / 499,497 = 999.005 → 999 + 1
      expect(amountIn(499n, 1000n, 1000n)).to.equal(1000n);
      // 500,000,000 / 498,500 = 1003.01 → 1003 + 1
      expect(amountIn(500n, 1000n, 1000n)).to.equal(1004n);
      // DUSD for 1 WETH from the same pool, figured in Python.
      expect(amountIn(E18, 3_000_000n * E18, 1000n * E18)).to.equal(3012039120364095288870n);
    });

    it('answers null where the library reverts', () => {
      expect(amountOut(0n, 1000n, 1000n)).to.equal(null);
      expect(amountOut(1n, 0n, 1000n)).to.equal(null);
      expect(amountOut(1n, 1000n, 0n)).to.equal(null);
      expect(amountIn(0n, 1000n, 1000n)).to.equal(null);
      expect(amountIn(1n, 0n, 1000n)).to.equal(null);
      expect(amountIn(1000n, 1000n, 1000n)).to.equal(null);
      expect(amountIn(1001n, 1000n, 1000n)).to.equal(null);
      // 999,000,000 / 997 = 1,002,006.02 → 1,002,006 + 1
      expect(amountIn(999n, 1000n, 1000n)).to.equal(1_002_007n);
    });

    it('answers null where SafeMath overflows uint256', () => {
      const max = (1n << 112n) - 1n;
      expect(amountOut(MAX_UINT256 / 997n / max + 1n, max, max)).to.equal(null);
      expect(amountOut(MAX_UINT256 / 997n / max, max, max)).to.not.equal(null);
      // The numerator fits, the denominator's sum does not.
      expect(amountOut(MAX_UINT256 / 997n, max, 1n)).to.equal(null);
    });
  });

  describe('properties', () => {
    it('amountOut grows with amountIn and stays below the reserve', () => {
      fc.assert(
        fc.property(amount, amount, reserve, reserve, (a, b, rIn, rOut) => {
          const [small, large] = a < b ? [a, b] : [b, a];
          const outSmall = amountOut(small, rIn, rOut)!;
          const outLarge = amountOut(large, rIn, rOut)!;
          expect(outSmall <= outLarge).to.equal(true);
          expect(outLarge < rOut).to.equal(true);
        }),
      );
    });

    it('amountIn(amountOut(x)) ≤ x: the pool never gives back more than was paid for', () => {
      fc.assert(
        fc.property(amount, reserve, reserve, (x, rIn, rOut) => {
          const out = amountOut(x, rIn, rOut)!;
          fc.pre(out > 0n);
          expect(amountIn(out, rIn, rOut)! <= x).to.equal(true);
        }),
      );
    });

    it('amountOut(amountIn(y)) ≥ y: paying what amountIn asks always buys y', () => {
      fc.assert(
        fc.property(reserve, reserve, fc.bigInt({ min: 1n, max: 1n << 112n }), (rIn, rOut, y) => {
          fc.pre(y < rOut);
          const x = amountIn(y, rIn, rOut)!;
          const out = amountOut(x, rIn, rOut);
          if (x * 997n * rOut > MAX_UINT256) expect(out).to.equal(null);
          else expect(out! >= y).to.equal(true);
        }),
      );
    });

    it('a multi-hop amount is the single hops composed', () => {
      fc.assert(
        fc.property(amount, fc.array(hop, { minLength: 1, maxLength: 3 }), (x, hops) => {
          let out: bigint | null = x;
          for (const h of hops)
            out = out === null ? null : amountOut(out, h.reserveIn, h.reserveOut);
          expect(amountOutAlong(x, hops)).to.equal(out);

          let needed: bigint | null = x;
          for (const h of [...hops].reverse())
            needed = needed === null ? null : amountIn(needed, h.reserveIn, h.reserveOut);
          expect(amountInAlong(x, hops)).to.equal(needed);
        }),
      );
    });

    it('the best route is the best of all routes, by amount then by gas', () => {
      const route = fc
        .array(hop, { minLength: 1, maxLength: 2 })
        .map((hops): Route => ({ path: [DUSD, ...hops.map(() => DDAI)], hops }));
      fc.assert(
        fc.property(fc.array(route, { maxLength: 4 }), amount, (routes, x) => {
          const outs = routes
            .map((r) => amountOutAlong(x, r.hops))
            .filter((o): o is bigint => o !== null && o > 0n);
          const sell = bestSellRoute(routes, x);
          if (outs.length === 0) expect(sell).to.equal(null);
          else expect(sell!.amount).to.equal(outs.reduce((a, b) => (a > b ? a : b)));

          const ins = routes
            .map((r) => amountInAlong(x, r.hops))
            .filter((i): i is bigint => i !== null);
          const buy = bestBuyRoute(routes, x);
          if (ins.length === 0) expect(buy).to.equal(null);
          else expect(buy!.amount).to.equal(ins.reduce((a, b) => (a < b ? a : b)));
        }),
      );
    });
  });

  describe('routes', () => {
    const pool = (token0: Address, token1: Address, reserve0: bigint, reserve1: bigint): Pool => ({
      address: `0x${token0.slice(2, 12)}${token1.slice(2, 32)}` as Address,
      token0,
      token1,
      reserve0,
      reserve1,
    });

    it('orders tokens as the pair does and reads a pool from either side', () => {
      expect(sortTokens(WETH, DUSD)).to.deep.equal([DUSD, WETH]);
      expect(sortTokens(DUSD, WETH)).to.deep.equal([DUSD, WETH]);
      const p = pool(DUSD, WETH, 3000n, 1n);
      expect(hopThrough(p, DUSD)).to.deep.equal({
        pool: p.address,
        reserveIn: 3000n,
        reserveOut: 1n,
      });
      expect(hopThrough(p, WETH)).to.deep.equal({
        pool: p.address,
        reserveIn: 1n,
        reserveOut: 3000n,
      });
    });

    it('counts the reserve going out smaller by the slippage, in each direction, quoting that much less', () => {
      const p = pool(DUSD, WETH, 3_000_000n * E18, 1_000n * E18);
      expect(hopThrough(p, DUSD, 50n).reserveOut).to.equal(995n * E18);
      expect(hopThrough(p, WETH, 50n).reserveOut).to.equal(2_985_000n * E18);
      const sold = 3_000n * E18;
      const exact = amountOutAlong(sold, [hopThrough(p, DUSD)])!;
      const slipped = amountOutAlong(sold, [hopThrough(p, DUSD, 50n)])!;
      // The output is linear in the reserve going out: 0.5% less, to the atom.
      const cut = (exact * 50n) / 10_000n;
      expect(
        exact - slipped >= cut - 1n && exact - slipped <= cut + 1n,
        `${exact} → ${slipped}`,
      ).to.equal(true);
      expect(
        amountInAlong(E18, [hopThrough(p, DUSD, 50n)])! >
          amountInAlong(E18, [hopThrough(p, DUSD)])!,
      ).to.equal(true);
    });

    it('tries the direct path and the one through the wrapped native token', () => {
      expect(candidatePaths(DUSD, DDAI, WETH)).to.deep.equal([
        [DUSD, DDAI],
        [DUSD, WETH, DDAI],
      ]);
      expect(candidatePaths(DUSD, WETH, WETH)).to.deep.equal([[DUSD, WETH]]);
      expect(candidatePaths(WETH, DDAI, WETH)).to.deep.equal([[WETH, DDAI]]);
      expect(candidatePaths(DUSD, DUSD, WETH)).to.deep.equal([]);
    });

    it('builds one route per choice of pool at each hop, none when a hop has no pool', () => {
      const a = pool(DUSD, WETH, 3000n, 1n);
      const b = pool(DUSD, WETH, 6000n, 2n);
      const c = pool(WETH, DDAI, 1n, 3000n);
      const routes = routesAlong([DUSD, WETH, DDAI], [[a, b], [c]]);
      expect(routes.map((r) => r.hops.map((h) => h.pool))).to.deep.equal([
        [a.address, c.address],
        [b.address, c.address],
      ]);
      expect(routes[0]!.hops[1]).to.deep.equal({
        pool: c.address,
        reserveIn: 1n,
        reserveOut: 3000n,
      });
      expect(routesAlong([DUSD, WETH, DDAI], [[a, b], []])).to.deep.equal([]);
    });

    it('goes through WETH when the direct pool is too shallow, and direct when it is not', () => {
      const routes = [
        ...routesAlong([DUSD, DDAI], [[pool(DUSD, DDAI, 30_000n * E18, 30_000n * E18)]]),
        ...routesAlong(
          [DUSD, WETH, DDAI],
          [
            [pool(DUSD, WETH, 3_000_000n * E18, 1000n * E18)],
            [pool(WETH, DDAI, 1000n * E18, 3_000_000n * E18)],
          ],
        ),
      ];
      expect(bestSellRoute(routes, 10n * E18)!.route.path).to.deep.equal([DUSD, DDAI]);
      expect(bestSellRoute(routes, 10_000n * E18)!.route.path).to.deep.equal([DUSD, WETH, DDAI]);
      expect(bestBuyRoute(routes, 10n * E18)!.route.path).to.deep.equal([DUSD, DDAI]);
      // More than the direct pool holds: only the route through WETH can deliver it.
      const big = bestBuyRoute(routes, 40_000n * E18)!;
      expect(big.route.path).to.deep.equal([DUSD, WETH, DDAI]);
      expect(big.gas).to.equal(routeGas(2));
    });

    it('prefers fewer pools on a tie and never picks a route giving nothing', () => {
      const even: Hop = { pool: WETH, reserveIn: 1000n, reserveOut: 1000n };
      expect(amountOutAlong(1n, [even])).to.equal(0n);
      expect(bestSellRoute([{ path: [DUSD, DDAI], hops: [even] }], 1n)).to.equal(null);

      // Deep pools: 1,000 in gives 996 out of each, and the second hop's richer side makes up
      // for its fee, so both routes give 996 (figured in Python).
      const deep: Hop = { pool: WETH, reserveIn: 10n ** 30n, reserveOut: 10n ** 30n };
      const richer: Hop = { pool: DDAI, reserveIn: 10n ** 30n, reserveOut: 1004n * 10n ** 27n };
      const direct: Route = { path: [DUSD, DDAI], hops: [deep] };
      const twoHops: Route = { path: [DUSD, WETH, DDAI], hops: [deep, richer] };
      expect(amountOutAlong(1000n, direct.hops)).to.equal(996n);
      expect(amountOutAlong(1000n, twoHops.hops)).to.equal(996n);
      for (const routes of [
        [direct, twoHops],
        [twoHops, direct],
      ]) {
        const chosen = bestSellRoute(routes, 1000n)!;
        expect(chosen.route).to.equal(direct);
        expect(chosen.gas).to.equal(routeGas(1));
      }
    });

    it('charges a base settlement plus a cost per pool', () => {
      // cowprotocol/services: SETTLEMENT_SINGLE_TRADE and 2 × ERC20_TRANSFER + 40,000 per hop.
      expect(SETTLEMENT_SINGLE_TRADE_GAS).to.equal(
        32_000n + 7_365n + 44_000n + 2n * 27_513n - 13_000n,
      );
      expect(POOL_HOP_GAS).to.equal(95_026n);
      expect(routeGas(1)).to.equal(220_417n);
      expect(routeGas(2)).to.equal(315_443n);
    });
  });
});
