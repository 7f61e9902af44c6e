/**
 * Coincidences of wants on one token pair: orders selling X for Y matched directly against
 * orders selling Y for X, at one price, with no pool in between.
 *
 * Why trades come in whole lots: the contract rounds every trade in the trader's favour, so at
 * prices p each trade takes at most as much value as it gives. With no pool bringing value in,
 * the contract ends short of some token unless every trade is exact. At reduced prices
 * `p[X] : p[Y] = A : B`, a trade is exact when it moves whole lots of B atoms of X against A atoms
 * of Y; then each side moves the same number of lots and both tokens balance to the atom.
 *
 * Rings (A→B→C→A, no two of them opposite) are `rings.ts`' question; it cuts them into lots
 * the same way.
 */
import type { Address } from '../events.js';
import type { OrderTerms } from '../order-terms.js';
import { remaining, respectsLimit, type ExecutedTrade } from '../trade-execution.js';
import { gcd, settlementGas } from './execution.js';
import type { Proposal, Solution } from './types.js';

/** A positive rational: Y atoms per X atom, the ratio `p[X] / p[Y]`. */
export interface Ratio {
  n: bigint;
  d: bigint;
}

const below = (a: Ratio, b: Ratio) => a.n * b.d < b.n * a.d;
export const minRatio = (a: Ratio, b: Ratio) => (below(a, b) ? a : b);
export const maxRatio = (a: Ratio, b: Ratio) => (below(a, b) ? b : a);

/** The price an X seller needs at least, a Y seller accepts at most. */
export const askLimit = (o: OrderTerms): Ratio => ({ n: o.buyAmount, d: o.sellAmount });
const bidLimit = (o: OrderTerms): Ratio => ({ n: o.sellAmount, d: o.buyAmount });

/**
 * How near the market price the price must stay when rounded to a simple fraction: one part in
 * 2^20. Simple fractions make small lots, so partially fillable orders lose less to rounding.
 */
export const WINDOW_BITS = 20n;

/** Fill-or-kill orders per side whose exact amounts are tried as prices (pairs of them). */
const FILL_OR_KILL_CANDIDATES = 8;

/** The fraction with the smallest denominator in [lo, hi] (Stern–Brocot, by continued fractions). */
export function simplestBetween(lo: Ratio, hi: Ratio): Ratio {
  const whole = lo.n / lo.d;
  if (whole * lo.d === lo.n) return { n: whole, d: 1n };
  if ((whole + 1n) * hi.d <= hi.n) return { n: whole + 1n, d: 1n };
  // Both ends lie in (whole, whole + 1): take the fractional parts and invert them.
  const inner = simplestBetween(
    { n: hi.d, d: hi.n - whole * hi.d },
    { n: lo.d, d: lo.n - whole * lo.d },
  );
  return { n: whole * inner.n + inner.d, d: inner.n };
}

/** Orders on one side, best limit first: they gain the most from a uniform price. */
function byLimit(
  orders: readonly OrderTerms[],
  limit: (o: OrderTerms) => Ratio,
  ascending: boolean,
) {
  return [...orders].sort((a, b) => {
    const [la, lb] = [limit(a), limit(b)];
    const cmp = la.n * lb.d - lb.n * la.d;
    if (cmp !== 0n) return cmp < 0n === ascending ? -1 : 1;
    return a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0;
  });
}

export interface Lots {
  order: OrderTerms;
  /** Atoms of the order's own unit (sell atoms of sell orders, buy atoms of buy orders) per lot. */
  unit: bigint;
  lots: bigint;
  fillOrKill: boolean;
}

/** What an order can take at these prices, in lots; null when it cannot trade at all. */
export function lotsOf(
  order: OrderTerms,
  unit: bigint,
  sellPrice: bigint,
  buyPrice: bigint,
): Lots | null {
  if (!respectsLimit(order, sellPrice, buyPrice)) return null;
  const left = remaining(order);
  // A fill-or-kill order executes its full amount, which must be whole lots to stay exact.
  if (!order.partiallyFillable && left % unit !== 0n) return null;
  const lots = left / unit;
  return lots > 0n ? { order, unit, lots, fillOrKill: !order.partiallyFillable } : null;
}

export const fillOrKillLots = (side: readonly Lots[]) =>
  side.reduce((sum, l) => sum + (l.fillOrKill ? l.lots : 0n), 0n);
export const partialLots = (side: readonly Lots[]) =>
  side.reduce((sum, l) => sum + (l.fillOrKill ? 0n : l.lots), 0n);

/** Drops the side's last (worst-limit) fill-or-kill order. */
export function dropLastFillOrKill(side: Lots[]): void {
  for (let i = side.length - 1; i >= 0; i--) {
    if (side[i]!.fillOrKill) {
      side.splice(i, 1);
      return;
    }
  }
}

/** `volume` lots from the side: fill-or-kill orders whole, then partial ones best limit first. */
export function fill(side: readonly Lots[], volume: bigint): ExecutedTrade[] {
  let left = volume - fillOrKillLots(side);
  const trades: ExecutedTrade[] = [];
  for (const l of side) {
    const lots = l.fillOrKill ? l.lots : l.lots < left ? l.lots : left;
    if (!l.fillOrKill) left -= lots;
    if (lots > 0n) trades.push({ uid: l.order.uid, executedAmount: lots * l.unit });
  }
  return trades;
}

/**
 * The pair's match at `p[x]`, `p[y]`, or null when nothing matches. Both sides move the same
 * number of lots; fill-or-kill orders that cannot fit are left out, worst limit first.
 */
function matchAt(
  asks: readonly OrderTerms[],
  bids: readonly OrderTerms[],
  x: Address,
  y: Address,
  prices: ReadonlyMap<Address, bigint>,
): Solution | null {
  const px = prices.get(x)!;
  const py = prices.get(y)!;
  const common = gcd(px, py);
  const [a, b] = [px / common, py / common];
  // A lot is b atoms of X against a atoms of Y: X sellers count X (sell) or Y (buy) atoms.
  const askLots = asks.flatMap((o) => lotsOf(o, o.kind === 'sell' ? b : a, px, py) ?? []);
  const bidLots = bids.flatMap((o) => lotsOf(o, o.kind === 'sell' ? a : b, py, px) ?? []);
  for (;;) {
    const [askFixed, bidFixed] = [fillOrKillLots(askLots), fillOrKillLots(bidLots)];
    if (askFixed > bidFixed + partialLots(bidLots)) dropLastFillOrKill(askLots);
    else if (bidFixed > askFixed + partialLots(askLots)) dropLastFillOrKill(bidLots);
    else break;
  }
  const askMax = fillOrKillLots(askLots) + partialLots(askLots);
  const bidMax = fillOrKillLots(bidLots) + partialLots(bidLots);
  const volume = askMax < bidMax ? askMax : bidMax;
  if (volume === 0n) return null;
  const trades = [...fill(askLots, volume), ...fill(bidLots, volume)];
  return {
    clearingPrices: new Map([
      [x, px],
      [y, py],
    ]),
    trades,
    swaps: [],
    gas: settlementGas(trades.length, 0),
  };
}

/** The ratio a fill-or-kill order fixes: X atoms (sells X or buys X) or Y atoms. */
function fixedAmount(order: OrderTerms, x: Address): { x: bigint } | { y: bigint } {
  const ofX = (order.sellToken === x) === (order.kind === 'sell');
  const amount = order.kind === 'sell' ? order.sellAmount : order.buyAmount;
  return ofX ? { x: amount } : { y: amount };
}

/**
 * Prices to try: the market price (the native prices' ratio) held within the range where the best
 * orders of both sides cross, rounded to a simple fraction; and, for pairs of fill-or-kill orders
 * fixing X on one side and Y on the other, their exact ratio, the only price at which both fill.
 */
function candidatePrices(
  asks: readonly OrderTerms[],
  bids: readonly OrderTerms[],
  x: Address,
  nativeX: bigint | undefined,
  nativeY: bigint | undefined,
): Ratio[] {
  const lo = asks.map(askLimit).reduce(minRatio);
  const hi = bids.map(bidLimit).reduce(maxRatio);
  if (below(hi, lo)) return [];
  const inRange = (r: Ratio) => !below(r, lo) && !below(hi, r);
  const candidates: Ratio[] = [];
  if (nativeX !== undefined && nativeY !== undefined && nativeX > 0n && nativeY > 0n) {
    const target = minRatio(maxRatio({ n: nativeX, d: nativeY }, lo), hi);
    const scale = 1n << WINDOW_BITS;
    const low = maxRatio({ n: target.n * (scale - 1n), d: target.d * scale }, lo);
    const high = minRatio({ n: target.n * (scale + 1n), d: target.d * scale }, hi);
    candidates.push(simplestBetween(low, high));
  }
  const fillOrKill = (side: readonly OrderTerms[]) =>
    side.filter((o) => !o.partiallyFillable).slice(0, FILL_OR_KILL_CANDIDATES);
  for (const ask of fillOrKill(asks)) {
    for (const bid of fillOrKill(bids)) {
      const [fa, fb] = [fixedAmount(ask, x), fixedAmount(bid, x)];
      const ratio =
        'x' in fa && 'y' in fb
          ? { n: fb.y, d: fa.x }
          : 'y' in fa && 'x' in fb
            ? { n: fa.y, d: fb.x }
            : null;
      if (ratio !== null && inRange(ratio)) candidates.push(ratio);
    }
  }
  const seen = new Set<string>();
  return candidates.filter((r) => {
    const common = gcd(r.n, r.d);
    const key = `${r.n / common}/${r.d / common}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

/**
 * The coincidences of wants between the orders of the pair {x, y} (either direction, each with
 * something left to fill), one proposal per candidate price. The caller scores them.
 */
export function coincidences(
  orders: readonly OrderTerms[],
  x: Address,
  y: Address,
  nativePrices: ReadonlyMap<Address, bigint>,
): Proposal[] {
  const asks = byLimit(
    orders.filter((o) => o.sellToken === x && o.buyToken === y),
    askLimit,
    true,
  );
  const bids = byLimit(
    orders.filter((o) => o.sellToken === y && o.buyToken === x),
    bidLimit,
    false,
  );
  if (asks.length === 0 || bids.length === 0) return [];
  const reprice = (prices: ReadonlyMap<Address, bigint>) => {
    const [px, py] = [prices.get(x), prices.get(y)];
    return px !== undefined && py !== undefined && px > 0n && py > 0n
      ? matchAt(asks, bids, x, y, prices)
      : null;
  };
  return candidatePrices(asks, bids, x, nativePrices.get(x), nativePrices.get(y)).flatMap((r) => {
    const common = gcd(r.n, r.d);
    const solution = reprice(
      new Map([
        [x, r.n / common],
        [y, r.d / common],
      ]),
    );
    return solution === null ? [] : [{ solution, reprice }];
  });
}
