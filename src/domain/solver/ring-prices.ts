/**
 * A ring's prices (see rings.ts): the vectors at which its three legs trade, from the split of
 * its surplus between the legs (a cube root) and from its fill-or-kill orders' exact amounts,
 * kept to amounts whose lots are small.
 */
import type { Address } from '../events.js';
import type { OrderTerms } from '../order-terms.js';
import { remaining } from '../trade-execution.js';
import {
  WINDOW_BITS,
  askLimit,
  maxRatio,
  minRatio,
  simplestBetween,
  type Ratio,
} from './coincidence.js';
import { gcd } from './execution.js';
import { RING_ORDERS_PER_LEG, type Ring, type Triple } from './rings.js';

/** Fill-or-kill orders per leg whose exact amounts are tried as the ring's amounts. */
export const RING_ANCHORS_PER_LEG = 2;

/** Price vectors tried per cycle. */
export const MAX_RING_PRICES = 64;

/** Fixed-point bits of the cube root that splits a ring's surplus between its legs. */
const SPLIT_BITS = 64n;

type Index = 0 | 1 | 2;
const next = (i: Index): Index => (i === 2 ? 0 : i + 1) as Index;

/** The triple of `f(0)`, `f(1)`, `f(2)`. */
const triple = <T>(f: (i: Index) => T): Triple<T> => [f(0), f(1), f(2)];

/** The greatest integer whose `k`-th power is at most `v` (Newton's method, from above). */
export function root(v: bigint, k: bigint): bigint {
  if (v < 2n) return v;
  let x = 1n << (BigInt(v.toString(2).length) / k + 1n);
  for (;;) {
    const y = ((k - 1n) * x + v / x ** (k - 1n)) / k;
    if (y >= x) break;
    x = y;
  }
  while (x ** k > v) x--;
  while ((x + 1n) ** k <= v) x++;
  return x;
}

function reduced(prices: Triple<bigint>): Triple<bigint> {
  const common = gcd(gcd(prices[0], prices[1]), prices[2]);
  return [prices[0] / common, prices[1] / common, prices[2] / common];
}

/**
 * Prices within the three legs' limits (leg i: `p[i] · d ≥ p[i+1] · n`): the market's (the native
 * prices) when it lies within all three, else the limits with the slack shared evenly, each
 * ratio its limit times the cube root of `1 / (r1 · r2 · r3)`. Null when the limits do not close
 * with something to spare.
 */
function target(limits: Triple<Ratio>, market: Triple<bigint>): Triple<bigint> | null {
  const [l1, l2, l3] = limits;
  const [n, d] = [l1.n * l2.n * l3.n, l1.d * l2.d * l3.d];
  if (n >= d) return null;
  const inside =
    market.every((p) => p > 0n) &&
    limits.every((l, i) => market[i]! * l.d >= market[(i + 1) % 3]! * l.n);
  if (inside) return market;
  const scale = 1n << SPLIT_BITS;
  // t ≥ scale as d > n: every ratio at least its limit, and p[2]/p[0] ≥ r3 as t³ ≤ d·scale³/n.
  const t = root((d * scale ** 3n) / n, 3n);
  return [l1.n * l2.n * t * t, l2.n * t * l1.d * scale, l1.d * l2.d * scale * scale];
}

/**
 * Prices near `t` made of simple fractions (small lots, so partially fillable orders lose little
 * to rounding), still within the limits: `p[0]/p[1]` first, then `p[1]/p[2]` where it leaves the
 * third leg its limit.
 */
function simplePrices(limits: Triple<Ratio>, t: Triple<bigint>): Triple<bigint> {
  const scale = 1n << WINDOW_BITS;
  const near = (r: Ratio, least: Ratio, most: Ratio) =>
    simplestBetween(
      maxRatio({ n: r.n * (scale - 1n), d: r.d * scale }, least),
      minRatio({ n: r.n * (scale + 1n), d: r.d * scale }, most),
    );
  const [l1, l2, l3] = limits;
  const a = near({ n: t[0], d: t[1] }, l1, { n: l2.d * l3.d, d: l2.n * l3.n });
  const bMost = { n: a.d * l3.d, d: a.n * l3.n };
  const b = near(minRatio(maxRatio({ n: t[1], d: t[2] }, l2), bMost), l2, bMost);
  return reduced([a.n * b.n, a.d * b.n, a.d * b.d]);
}

/** The prices at which the ring moves exactly `amounts` of its three tokens: `p[t] ∝ 1 / amounts[t]`. */
function pricesMoving(amounts: Triple<bigint>): Triple<bigint> | null {
  const [x, y, z] = amounts;
  if (x <= 0n || y <= 0n || z <= 0n) return null;
  // The least common multiple over each amount: no common factor is left.
  const value = lcm(lcm(x, y), z);
  return [value / x, value / y, value / z];
}

/**
 * The price vectors tried for `ring`, at most `MAX_RING_PRICES`:
 * - for each depth k, the limits of each leg's k best orders, at the market (or the even split)
 *   in simple fractions;
 * - for each choice of one order per leg among its best fill-or-kill ones and its best partially
 *   fillable one: the amounts the fill-or-kill ones fix (a sell order its sell token, a buy
 *   order its buy token; two fixing one token must agree); one left free, the amount within
 *   both its legs' limits nearest the geometric mean of its neighbours' values; two left free,
 *   their amounts at the market (or split) rounded both ways; none fixed, the smallest leg's
 *   order in full. Those amounts define the prices, at which each of these orders trades
 *   exactly.
 */
export function ringPrices(
  ring: Ring,
  nativePrices: ReadonlyMap<Address, bigint>,
): Triple<bigint>[] {
  const market = triple((i) => nativePrices.get(ring.tokens[i]) ?? 0n);
  const found: Triple<bigint>[] = [];
  for (let k = 0; k < RING_ORDERS_PER_LEG; k++) {
    const limits = triple((i) => askLimit(ring.legs[i][Math.min(k, ring.legs[i].length - 1)]!));
    const t = target(limits, market);
    if (t === null) break;
    found.push(simplePrices(limits, t));
    if (ring.legs.every((leg) => k >= leg.length - 1)) break;
  }
  const options = ring.legs.map((leg) => [
    ...leg.filter((o) => !o.partiallyFillable).slice(0, RING_ANCHORS_PER_LEG),
    ...leg.filter((o) => o.partiallyFillable).slice(0, 1),
  ]);
  for (const first of options[0]!) {
    for (const second of options[1]!) {
      for (const third of options[2]!) {
        const chosen = [first, second, third] as const;
        const t = target(
          triple((i) => askLimit(chosen[i])),
          market,
        );
        if (t !== null) found.push(...anchored(chosen, t, market));
      }
    }
  }
  const seen = new Set<string>();
  return found
    .filter((prices) => {
      const key = prices.join('/');
      return seen.has(key) ? false : (seen.add(key), true);
    })
    .slice(0, MAX_RING_PRICES);
}

/** The price vectors making the chosen orders (one per leg) trade exactly; see `ringPrices`. */
function anchored(
  chosen: Triple<OrderTerms>,
  t: Triple<bigint>,
  market: Triple<bigint>,
): Triple<bigint>[] {
  const fixed: (bigint | undefined)[] = [undefined, undefined, undefined];
  for (const i of [0, 1, 2] as const) {
    const o = chosen[i];
    if (o.partiallyFillable) continue;
    const [token, amount] = o.kind === 'sell' ? [i, o.sellAmount] : [next(i), o.buyAmount];
    if (fixed[token] !== undefined && fixed[token] !== amount) return [];
    fixed[token] = amount;
  }
  const anchor = fixed.findIndex((a) => a !== undefined);
  if (anchor < 0) {
    // All partially fillable: the leg worth least at `t` fills in full.
    const value = triple(
      (i) => remaining(chosen[i]) * t[chosen[i].kind === 'sell' ? i : next(i)],
    ).reduce((a, b) => (a < b ? a : b));
    const prices = pricesMoving(triple((i) => value / t[i]));
    return prices === null ? [] : [prices];
  }
  const missing = ([0, 1, 2] as const).filter((i) => fixed[i] === undefined);
  const scale = 1n << WINDOW_BITS;
  const candidates: Triple<bigint>[] = [];
  const tryAmounts = (amounts: Triple<bigint | null>) => {
    if (amounts.some((a) => a === null)) return;
    const prices = pricesMoving(amounts as Triple<bigint>);
    if (prices !== null) candidates.push(prices);
  };
  if (missing.length === 1) {
    // Between what the leg buying it asks and what the leg selling it may give, nearest the
    // geometric mean of its neighbours' values; or a multiple sharing their factors.
    const k = missing[0]!;
    const [before, after] = [next(next(k)), next(k)];
    const [asked, given] = [askLimit(chosen[before]), askLimit(chosen[k])];
    const least = (fixed[before]! * asked.n + asked.d - 1n) / asked.d;
    const most = (fixed[after]! * given.d) / given.n;
    if (least > most) return [];
    const value = root(fixed[before]! * market[before] * fixed[after]! * market[after], 2n);
    const preferred = market[k] > 0n ? value / market[k] : least;
    const near = preferred < least ? least : preferred > most ? most : preferred;
    const neighbours = lcm(fixed[before]!, fixed[after]!);
    const [low, high] = [near - near / scale, near + near / scale];
    for (const amount of [
      near,
      smoothNear(near, low > least ? low : least, high < most ? high : most, neighbours),
      smoothNear(near, least, most, neighbours),
    ]) {
      tryAmounts(triple((i) => (i === k ? amount : fixed[i]!)));
    }
    return candidates;
  }
  // Each missing amount at the target's ratio to the anchor's, rounded down and up; or, near
  // that, a multiple sharing the factors of the amounts before it.
  const worth = fixed[anchor]! * t[anchor as Index];
  const ways = triple((i): bigint[] => {
    const amount = fixed[i];
    if (amount !== undefined) return [amount];
    return worth % t[i] === 0n ? [worth / t[i]] : [worth / t[i], worth / t[i] + 1n];
  });
  for (const x of ways[0]) {
    for (const y of ways[1]) {
      for (const z of ways[2]) tryAmounts([x, y, z]);
    }
  }
  let known = fixed[anchor]!;
  const smooth = triple((i): bigint | null => {
    if (fixed[i] !== undefined) return fixed[i]!;
    const near = worth / t[i];
    const amount = smoothNear(near, near - near / scale, near + near / scale, known);
    if (amount !== null) known = lcm(known, amount);
    return amount;
  });
  tryAmounts(smooth);
  return candidates;
}

/** Primes whose powers `smoothNear` looks for in an amount. */
const SMALL_PRIMES = [2n, 3n, 5n, 7n, 11n, 13n];

export const lcm = (a: bigint, b: bigint) => (a / gcd(a, b)) * b;

/**
 * The multiple of `c` in [least, most] nearest `near`, `c` the largest divisor of `of` made of
 * small primes (greedily, smallest first) that is no more than the range's width; null when
 * there is none. Sharing those factors with `of` keeps the least common multiple of the ring's
 * amounts small: at exact prices that is the contract's product of an amount and its price,
 * which unrelated large amounts would take beyond uint256.
 */
function smoothNear(near: bigint, least: bigint, most: bigint, of: bigint): bigint | null {
  if (least > most || least <= 0n) return null;
  let c = 1n;
  for (const p of SMALL_PRIMES) {
    while (c * p <= most - least && of % (c * p) === 0n) c *= p;
  }
  const below = (near / c) * c;
  const distance = (a: bigint) => (a > near ? a - near : near - a);
  const options = [below, below + c].filter((a) => a >= least && a <= most);
  return options.reduce<bigint | null>(
    (best, a) => (best === null || distance(a) < distance(best) ? a : best),
    null,
  );
}
