/**
 * Rings: orders going round three tokens, X → Y → Z → X (one leg sells X for Y, the next Y for
 * Z, the last Z for X), matched directly at one price per token with no pool in between. No two
 * of them are opposite, so no coincidence of one pair finds them.
 *
 * With prices p, leg i asks `p[its sell token] / p[its buy token]` to be at least its limit, so
 * the three ratios multiply to 1 and a ring closes only when the product of its limits is below
 * 1; what is left below 1 is the surplus the ring shares out.
 *
 * As with coincidences (`coincidence.ts`), the contract rounds every trade in the trader's
 * favour and no pool brings value in, so every trade must be exact and every token balance to
 * the atom. With L the least common multiple of the three prices, a lot is `L / p[t]` atoms of
 * each token t: every order trades whole lots, and the three legs move the same number of lots.
 *
 * Work is bounded whatever the auction's size: `RING_EDGES` directed pairs, `MAX_RING_CYCLES`
 * cycles, `RING_ORDERS_PER_LEG` orders per leg and `MAX_RING_PRICES` price vectors per cycle.
 */
import type { Address, OrderUid } from '../events.js';
import {
  WINDOW_BITS,
  askLimit,
  dropLastFillOrKill,
  fill,
  fillOrKillLots,
  lotsOf,
  maxRatio,
  minRatio,
  partialLots,
  simplestBetween,
  type Lots,
  type Ratio,
} from './coincidence.js';
import type { OrderTerms } from '../order-terms.js';
import { directedScores, sum } from '../referee/score.js';
import { remaining, respectsLimit } from '../trade-execution.js';
import { checkSolution, gcd, settlementGas, solvable } from './execution.js';
import type { Proposal, Solution } from './types.js';

type Triple<T> = readonly [T, T, T];

/** The most generous orders of each leg a ring works with. */
export const RING_ORDERS_PER_LEG = 5;

/** Directed pairs (those with the most generous orders against the market) searched for cycles. */
export const RING_EDGES = 256;

/** Cycles tried per auction: those with the most surplus in sight. */
export const MAX_RING_CYCLES = 50;

/** Fill-or-kill orders per leg whose exact amounts are tried as the ring's amounts. */
export const RING_ANCHORS_PER_LEG = 2;

/** Price vectors tried per cycle. */
export const MAX_RING_PRICES = 64;

/** Fixed-point bits of the cube root that splits a ring's surplus between its legs. */
const SPLIT_BITS = 64n;

/**
 * A cycle of three tokens and the orders of its legs: leg i sells `tokens[i]` for
 * `tokens[(i + 1) % 3]`, its orders best limit first.
 */
export interface Ring {
  tokens: Triple<Address>;
  legs: Triple<readonly OrderTerms[]>;
}

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

const lcm = (a: bigint, b: bigint) => (a / gcd(a, b)) * b;

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

/**
 * The ring at `prices` (its three tokens priced), or null when nothing trades: each leg's
 * orders within their limits cut into lots, the same number of lots on every leg; fill-or-kill
 * orders that cannot fit are left out, the worst limit first of the leg fixing the most.
 */
export function ringAt(ring: Ring, prices: ReadonlyMap<Address, bigint>): Solution | null {
  const p = ring.tokens.map((t) => prices.get(t) ?? 0n);
  if (p.some((price) => price <= 0n)) return null;
  const within = ring.legs.map((leg, i) =>
    leg.filter((o) => respectsLimit(o, p[i]!, p[(i + 1) % 3]!)),
  );
  if (within.some((leg) => leg.length === 0)) return null;
  const whole = p.reduce(lcm);
  const unit = p.map((price) => whole / price);
  const sides: Lots[][] = within.map((leg, i) =>
    leg.flatMap((o) => {
      const [sell, buy] = [i, (i + 1) % 3];
      return lotsOf(o, unit[o.kind === 'sell' ? sell : buy]!, p[sell]!, p[buy]!) ?? [];
    }),
  );
  let volume: bigint;
  for (;;) {
    const fixed = sides.map(fillOrKillLots);
    volume = sides
      .map((side, i) => fixed[i]! + partialLots(side))
      .reduce((a, b) => (a < b ? a : b));
    const most = fixed.reduce((m, f, i) => (f > fixed[m]! ? i : m), 0);
    if (fixed[most]! <= volume) break;
    dropLastFillOrKill(sides[most]!);
  }
  if (volume === 0n) return null;
  const trades = sides.flatMap((side) => fill(side, volume));
  return {
    clearingPrices: new Map(ring.tokens.map((t, i) => [t, p[i]!])),
    trades,
    swaps: [],
    gas: settlementGas(trades.length, 0),
  };
}

/** `byLimit`'s order of asks: the least asked per atom sold first, then by uid. */
function asksLess(a: OrderTerms, b: OrderTerms): boolean {
  const cmp = a.buyAmount * b.sellAmount - b.buyAmount * a.sellAmount;
  return cmp < 0n || (cmp === 0n && a.uid < b.uid);
}

/** Puts `order` into `best` (sorted by `asksLess`) if it is among the `RING_ORDERS_PER_LEG` first. */
function keepBest(best: OrderTerms[], order: OrderTerms): void {
  let i = best.length;
  while (i > 0 && asksLess(order, best[i - 1]!)) i--;
  if (i >= RING_ORDERS_PER_LEG) return;
  best.splice(i, 0, order);
  if (best.length > RING_ORDERS_PER_LEG) best.pop();
}

/** A float estimate of `a / b`, for ranking only. */
const approx = (a: bigint, b: bigint) => Number(a) / Number(b);

interface Edge {
  key: string;
  sell: Address;
  buy: Address;
  /** Best limit first, at most `RING_ORDERS_PER_LEG`. */
  orders: readonly OrderTerms[];
  /** The best order's limit over the market's rate: below 1 means generous. */
  ask: number;
  /** What the leg's orders could sell, in native atoms. */
  value: number;
}

/**
 * The cycles worth trying among `orders`, most surplus in sight first, at most
 * `MAX_RING_CYCLES`: among the `RING_EDGES` directed pairs whose best order asks least against
 * the market, every cycle of three whose best orders' limits close (their product below 1),
 * ranked by what is left below 1 times the value of its smallest leg.
 */
export function ringCycles(
  orders: readonly OrderTerms[],
  nativePrices: ReadonlyMap<Address, bigint>,
): Ring[] {
  // Per directed pair, its most generous orders: kept sorted, in one pass over the auction.
  const bySell = new Map<Address, Map<Address, OrderTerms[]>>();
  for (const order of orders) {
    if (!solvable(order, nativePrices)) continue;
    let byBuy = bySell.get(order.sellToken);
    if (byBuy === undefined) bySell.set(order.sellToken, (byBuy = new Map()));
    const best = byBuy.get(order.buyToken);
    if (best === undefined) byBuy.set(order.buyToken, [order]);
    else keepBest(best, order);
  }
  const pairs = [...bySell.values()].flatMap((byBuy) => [...byBuy.values()]);
  const edges: Edge[] = pairs.map((best) => {
    const [first] = best as [OrderTerms];
    const key = `${first.sellToken}/${first.buyToken}`;
    const [ns, nb] = [nativePrices.get(first.sellToken)!, nativePrices.get(first.buyToken)!];
    const value = best.reduce(
      (total, o) => total + approx(remaining(o) * (o.kind === 'sell' ? ns : nb), 10n ** 18n),
      0,
    );
    return {
      key,
      sell: first.sellToken,
      buy: first.buyToken,
      orders: best,
      ask: approx(first.buyAmount * nb, first.sellAmount * ns),
      value,
    };
  });
  edges.sort((p, q) => p.ask - q.ask || (p.key < q.key ? -1 : p.key > q.key ? 1 : 0));
  const kept = edges.slice(0, RING_EDGES);
  const byKey = new Map(kept.map((e) => [e.key, e]));
  const from = new Map<Address, Edge[]>();
  for (const edge of kept) {
    const out = from.get(edge.sell);
    if (out === undefined) from.set(edge.sell, [edge]);
    else out.push(edge);
  }
  const cycles: { ring: Ring; key: string; promise: number }[] = [];
  for (const first of kept) {
    for (const second of from.get(first.buy) ?? []) {
      // Each cycle once: from its least token.
      if (!(first.sell < first.buy && first.sell < second.buy)) continue;
      const third = byKey.get(`${second.buy}/${first.sell}`);
      if (third === undefined) continue;
      const limits = [first, second, third].map((e) => askLimit(e.orders[0]!));
      const n = limits.reduce((acc, l) => acc * l.n, 1n);
      const d = limits.reduce((acc, l) => acc * l.d, 1n);
      if (n >= d) continue;
      const slack = 1 - first.ask * second.ask * third.ask;
      cycles.push({
        ring: {
          tokens: [first.sell, first.buy, second.buy],
          legs: [first.orders, second.orders, third.orders],
        },
        key: `${first.key}/${second.buy}`,
        promise: Math.max(slack, 0) * Math.min(first.value, second.value, third.value),
      });
    }
  }
  cycles.sort((p, q) => q.promise - p.promise || (p.key < q.key ? -1 : p.key > q.key ? 1 : 0));
  return cycles.slice(0, MAX_RING_CYCLES).map(({ ring }) => ring);
}

const NO_POOLS = new Map();

/**
 * The best ring of `ring`'s orders (the highest score among its price vectors), checked as the
 * contract would execute it, or null when none scores above zero. Reprices at any prices of its
 * three tokens.
 */
export function bestRing(ring: Ring, nativePrices: ReadonlyMap<Address, bigint>): Proposal | null {
  const orders = new Map<OrderUid, OrderTerms>(ring.legs.flat().map((o) => [o.uid, o]));
  let best: { solution: Solution; score: bigint } | null = null;
  for (const prices of ringPrices(ring, nativePrices)) {
    const solution = ringAt(ring, new Map(ring.tokens.map((t, i) => [t, prices[i]!])));
    if (solution === null) continue;
    const score = sum(directedScores(solution, orders, nativePrices));
    if (score === null || score <= 0n || (best !== null && score <= best.score)) continue;
    if (checkSolution(solution, orders, NO_POOLS) === null) best = { solution, score };
  }
  return best && { solution: best.solution, reprice: (prices) => ringAt(ring, prices) };
}

/** The best ring of each cycle worth trying among `orders` (see `ringCycles`). */
export function rings(
  orders: readonly OrderTerms[],
  nativePrices: ReadonlyMap<Address, bigint>,
): Proposal[] {
  return ringCycles(orders, nativePrices).flatMap((ring) => bestRing(ring, nativePrices) ?? []);
}
