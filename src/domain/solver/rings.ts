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
 * Their prices are found in ring-prices.ts. Work is bounded whatever the auction's size: `RING_EDGES` directed pairs, `MAX_RING_CYCLES`
 * cycles, `RING_ORDERS_PER_LEG` orders per leg and `MAX_RING_PRICES` price vectors per cycle.
 */
import type { Address, OrderUid } from '../events.js';
import {
  askLimit,
  dropLastFillOrKill,
  fill,
  fillOrKillLots,
  lotsOf,
  partialLots,
  type Lots,
} from './coincidence.js';
import type { OrderTerms } from '../order-terms.js';
import { directedScores, sum } from '../referee/score.js';
import { remaining, respectsLimit } from '../trade-execution.js';
import { checkSolution, settlementGas, solvable } from './execution.js';
import { lcm, ringPrices } from './ring-prices.js';
import type { Proposal, Solution } from './types.js';

export type Triple<T> = readonly [T, T, T];

/** The most generous orders of each leg a ring works with. */
export const RING_ORDERS_PER_LEG = 5;

/** Directed pairs (those with the most generous orders against the market) searched for cycles. */
export const RING_EDGES = 256;

/** Cycles tried per auction: those with the most surplus in sight. */
export const MAX_RING_CYCLES = 50;

/**
 * A cycle of three tokens and the orders of its legs: leg i sells `tokens[i]` for
 * `tokens[(i + 1) % 3]`, its orders best limit first.
 */
export interface Ring {
  tokens: Triple<Address>;
  legs: Triple<readonly OrderTerms[]>;
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
