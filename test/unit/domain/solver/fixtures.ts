/** Tokens, pools and order builders, and random auctions, shared by the solver tests. */
import fc from 'fast-check';
import type { Pool } from '../../../../src/domain/amm.js';
import type { Address, OrderUid } from '../../../../src/domain/events.js';
import type { OrderTerms } from '../../../../src/domain/order-terms.js';
import { score, type PricedTrades } from '../../../../src/domain/referee/score.js';
import type { SolverAuction } from '../../../../src/domain/solver/types.js';

export const E18 = 10n ** 18n;
export const WETH: Address = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
export const DUSD: Address = '0x0000000000000000000000000000000000000001';
export const DDAI: Address = '0xffffffffffffffffffffffffffffffffffffffff';
const OWNER: Address = '0x1111111111111111111111111111111111111111';

export const uid = (n: number): OrderUid => `0x${n.toString(16).padStart(112, '0')}`;

export function order(
  n: number,
  fields: Pick<OrderTerms, 'sellToken' | 'buyToken' | 'sellAmount' | 'buyAmount'> &
    Partial<OrderTerms>,
): OrderTerms {
  return {
    uid: uid(n),
    owner: OWNER,
    kind: 'sell',
    partiallyFillable: false,
    executed: 0n,
    ...fields,
  };
}

/**
 * A random order's signed amounts: sell orders ask `ask`% of the market's buy amount; buy
 * orders offer 10000/`ask`% of its sell amount.
 */
function limitAmounts(
  s: { kind: OrderTerms['kind']; ask: number },
  sellAtoms: bigint,
  buyAtoms: bigint,
): [bigint, bigint] {
  return s.kind === 'sell'
    ? [sellAtoms, (buyAtoms * BigInt(s.ask)) / 100n + 1n]
    : [(sellAtoms * 100n) / BigInt(s.ask) + 1n, buyAtoms];
}

/**
 * An order filled before: partially fillable ones by `partly` of their amount (rounded down to
 * a percent), fill-or-kill ones entirely (`whole` 1) or not at all (0), as the contract's own
 * counter would have them.
 */
function filledOrder(
  n: number,
  fields: Pick<
    OrderTerms,
    'sellToken' | 'buyToken' | 'sellAmount' | 'buyAmount' | 'kind' | 'partiallyFillable'
  >,
  partly: number,
  whole: 0 | 1,
): OrderTerms {
  const { sellAmount, buyAmount, kind } = fields;
  const full = kind === 'sell' ? sellAmount : buyAmount;
  const executed = fields.partiallyFillable
    ? (full * BigInt(Math.round(partly * 10_000))) / 10_000n
    : full * BigInt(whole);
  return order(n, { ...fields, executed });
}

/** The devnet's WETH/DUSD pair: 1,000 WETH against 3,000,000 DUSD. */
export const devnetPool: Pool = {
  address: '0x00000000000000000000000000000000000000f1',
  token0: DUSD,
  token1: WETH,
  reserve0: 3_000_000n * E18,
  reserve1: 1000n * E18,
};

/** A WETH/DDAI pair at the same price, WETH being its token0 (the devnet pool's is DUSD). */
export const ddaiPool: Pool = {
  address: '0x00000000000000000000000000000000000000f2',
  token0: WETH,
  token1: DDAI,
  reserve0: 1000n * E18,
  reserve1: 3_000_000n * E18,
};

/** DUSD at 1/3000 WETH, the devnet pool's price. */
export const devnetPrices = new Map<Address, bigint>([
  [WETH, E18],
  [DUSD, E18 / 3000n],
  [DDAI, E18 / 3000n],
]);

export function auction(orders: OrderTerms[], pools: Pool[] = [], id = 1): SolverAuction {
  return { id, orders, nativePrices: devnetPrices, pools, wrappedNative: WETH };
}

/** The score of `solution` on each directed token pair it trades. */
export function directedPairs(solution: PricedTrades, auction: SolverAuction): Map<string, bigint> {
  const byUid = new Map(auction.orders.map((o) => [o.uid, o]));
  const pairs = new Map<string, bigint>();
  for (const trade of solution.trades) {
    const o = byUid.get(trade.uid)!;
    const key = `${o.sellToken}/${o.buyToken}`;
    if (pairs.has(key)) continue;
    const same = solution.trades.filter((t) => {
      const other = byUid.get(t.uid)!;
      return other.sellToken === o.sellToken && other.buyToken === o.buyToken;
    });
    pairs.set(key, score({ ...solution, trades: same }, auction)!);
  }
  return pairs;
}

const MAX_RESERVE = (1n << 112n) - 1n;
export const T4: Address = '0x4444444444444444444444444444444444444444';
export const TOKENS = [WETH, DUSD, DDAI, T4] as const;
export const PAIRS = TOKENS.flatMap((a, i) => TOKENS.slice(i + 1).map((b) => [a, b] as const));

/** A positive amount spread over many orders of magnitude: mantissa · 10^exponent. */
export const magnitude = (min: number, max: number) =>
  fc
    .tuple(fc.bigInt({ min: 1n, max: 999n }), fc.integer({ min, max }))
    .map(([m, e]) => m * 10n ** BigInt(e));

export const randomPrices = fc.tuple(magnitude(4, 22), magnitude(4, 22), magnitude(4, 22)).map(
  ([a, b, c]) =>
    new Map<Address, bigint>([
      [WETH, E18],
      [DUSD, a],
      [DDAI, b],
      [T4, c],
    ]),
);

/** Atoms of `token` worth `value` native atoms (at least one). */
export const atoms = (value: bigint, token: Address, native: ReadonlyMap<Address, bigint>) => {
  const amount = (value * E18) / native.get(token)!;
  return amount > 0n ? amount : 1n;
};

export function randomPools(native: ReadonlyMap<Address, bigint>) {
  const pool = fc.record({
    value: magnitude(12, 24),
    // The pool's price off the market by −50% … +100%.
    skew: fc.integer({ min: 50, max: 200 }),
  });
  return fc.tuple(...PAIRS.map(() => fc.option(pool, { nil: undefined }))).map((specs) =>
    specs.flatMap((spec, i): Pool[] => {
      if (spec === undefined) return [];
      const [a, b] = [...PAIRS[i]!].sort() as [Address, Address];
      const reserve0 = atoms(spec.value, a, native);
      const reserve1 = (atoms(spec.value, b, native) * BigInt(spec.skew)) / 100n + 1n;
      if (reserve0 > MAX_RESERVE || reserve1 > MAX_RESERVE) return [];
      return [
        {
          address: `0x${'f'.repeat(38)}${i.toString(16).padStart(2, '0')}`,
          token0: a,
          token1: b,
          reserve0,
          reserve1,
        },
      ];
    }),
  );
}

export function randomOrders(native: ReadonlyMap<Address, bigint>, minLength = 0) {
  const spec = fc.record({
    tokens: fc.constantFrom(...PAIRS),
    reversed: fc.boolean(),
    kind: fc.constantFrom('sell' as const, 'buy' as const),
    partiallyFillable: fc.boolean(),
    value: magnitude(10, 24),
    // The limit: what the order asks against the market, 70% (generous) … 130% (out of it).
    ask: fc.integer({ min: 70, max: 130 }),
    // Partially fillable orders: the part filled before; fill-or-kill ones: filled or not.
    filled: fc.integer({ min: 0, max: 100 }),
    raw: fc.option(
      fc.tuple(fc.bigInt({ min: 1n, max: 1n << 100n }), fc.bigInt({ min: 1n, max: 1n << 100n })),
      {
        freq: 8,
        nil: undefined,
      },
    ),
  });
  return fc.array(spec, { minLength, maxLength: 8 }).map((specs) =>
    specs.map((s, i): OrderTerms => {
      const [sellToken, buyToken] = s.reversed
        ? [s.tokens[1], s.tokens[0]]
        : [s.tokens[0], s.tokens[1]];
      const [sellAtoms, buyAtoms] = [
        atoms(s.value, sellToken, native),
        atoms(s.value, buyToken, native),
      ];
      const [sellAmount, buyAmount] = s.raw ?? limitAmounts(s, sellAtoms, buyAtoms);
      const { kind, partiallyFillable } = s;
      return filledOrder(
        i + 1,
        { sellToken, buyToken, sellAmount, buyAmount, kind, partiallyFillable },
        s.filled / 100,
        s.filled > 90 ? 1 : 0,
      );
    }),
  );
}

/**
 * Random auctions of at least `minOrders` orders. Shrinking an auction built by `chain` can go
 * on for a very long time (seen: over ten minutes), so it stops after a bounded number of
 * attempts.
 */
export const auctionsOf = (minOrders: number): fc.Arbitrary<SolverAuction> =>
  fc.limitShrink(
    randomPrices.chain((native) =>
      fc.tuple(randomOrders(native, minOrders), randomPools(native)).map(([orders, pools]) => ({
        id: 1,
        orders,
        nativePrices: native,
        pools,
        wrappedNative: WETH,
      })),
    ),
    1000,
  );

export const randomAuctions = auctionsOf(0);

/** Every cycle X → Y → Z → X of three distinct tokens of `TOKENS`, in each direction. */
export const CYCLES = TOKENS.flatMap((x) =>
  TOKENS.flatMap((y) =>
    TOKENS.flatMap((z) =>
      x !== y && y !== z && z !== x ? [[x, y, z] as readonly [Address, Address, Address]] : [],
    ),
  ),
);

/**
 * Orders going round a random cycle of three tokens, one or two a leg, their amounts all worth
 * about the same (some exactly the same, so fill-or-kill legs can balance) and their limits
 * mostly within the market's: ring-shaped order sets, uids from `firstUid` on.
 */
export function ringOrders(native: ReadonlyMap<Address, bigint>, firstUid: number) {
  const leg = fc.array(
    fc.record({
      kind: fc.constantFrom('sell' as const, 'buy' as const),
      partiallyFillable: fc.boolean(),
      // The order's size against the ring's value: the same (exact legs) or other sizes.
      size: fc.constantFrom(100n, 100n, 100n, 50n, 137n, 300n),
      // The limit against the market: 70% (generous) … 104% (a little out of it).
      ask: fc.integer({ min: 70, max: 104 }),
      filled: fc.integer({ min: 0, max: 100 }),
    }),
    { minLength: 1, maxLength: 2 },
  );
  return fc
    .record({
      cycle: fc.constantFrom(...CYCLES),
      value: magnitude(10, 23),
      legs: fc.tuple(leg, leg, leg),
    })
    .map(({ cycle, value, legs }) =>
      legs.flatMap((specs, i) =>
        specs.map((s): OrderTerms => {
          const [sellToken, buyToken] = [cycle[i]!, cycle[(i + 1) % 3]!];
          const worth = (value * s.size) / 100n;
          const [sellAtoms, buyAtoms] = [
            atoms(worth, sellToken, native),
            atoms(worth, buyToken, native),
          ];
          const [sellAmount, buyAmount] = limitAmounts(s, sellAtoms, buyAtoms);
          const { kind, partiallyFillable } = s;
          return filledOrder(
            firstUid + i * 2 + specs.indexOf(s),
            { sellToken, buyToken, sellAmount, buyAmount, kind, partiallyFillable },
            s.filled / 200,
            s.filled > 95 ? 1 : 0,
          );
        }),
      ),
    );
}

/** Random auctions with a ring-shaped order set among the random orders, pools or none. */
export const ringAuctions: fc.Arbitrary<SolverAuction> = fc.limitShrink(
  randomPrices.chain((native) =>
    fc
      .tuple(
        randomOrders(native),
        ringOrders(native, 100),
        fc.oneof(randomPools(native), fc.constant([] as Pool[])),
      )
      .map(([orders, ring, pools]) => ({
        id: 1,
        orders: [...ring, ...orders],
        nativePrices: native,
        pools,
        wrappedNative: WETH,
      })),
  ),
  1000,
);
