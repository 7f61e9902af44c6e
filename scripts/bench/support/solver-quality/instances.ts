/**
 * Seeded random auctions for the solver-quality bench: 3–6 tokens (WETH and others of 18 or 6
 * decimals, priced from 0.0001 to 10 ETH), a Uniswap-V2 pool between WETH and every other token
 * and some between two others, half of them at the market price and half up to 3 % off it;
 * orders on random pairs, sell and buy, 40 % partially fillable, worth 0.05–5 ETH, their limits
 * from 2.5 % better than the market (for the trader) to 2 % worse.
 */
import type { Pool } from '../../../../src/domain/amm.js';
import type { Address, OrderUid } from '../../../../src/domain/events.js';
import type { OrderTerms } from '../../../../src/domain/order-terms.js';
import type { SolverAuction } from '../../../../src/domain/solver/types.js';
import { seededRandom } from '../seeded-random.js';

const E18 = 10n ** 18n;

const hex = (n: number, bytes: number) => `0x${n.toString(16).padStart(2 * bytes, '0')}`;
const address = (n: number) => hex(n, 20) as Address;

/** A float as a rational `n / 2^40`, times a bigint, rounded down. */
const times = (amount: bigint, factor: number) =>
  (amount * BigInt(Math.round(factor * 2 ** 40))) >> 40n;

export interface InstanceShape {
  orders: number;
  /** Share of orders that are partially fillable. */
  partial?: number;
}

/** The auction of seed `seed` with `shape.orders` orders. */
export function instance(seed: number, shape: InstanceShape): SolverAuction {
  const rand = seededRandom(seed);
  const between = (lo: number, hi: number) => lo + (hi - lo) * rand();
  const logBetween = (lo: number, hi: number) => Math.exp(between(Math.log(lo), Math.log(hi)));
  const weth = address(0xeeee);
  const count = 3 + Math.floor(rand() * 4);
  const tokens: Address[] = [weth];
  const nativePrices = new Map<Address, bigint>([[weth, E18]]);
  /** Atoms of each token worth one ETH at the market. */
  const atomsPerEth = new Map<Address, bigint>([[weth, E18]]);
  for (let i = 1; i < count; i++) {
    const token = address(0x1000 + seed * 16 + i);
    const decimals = rand() < 0.3 ? 6n : 18n;
    const ethPerToken = logBetween(1e-4, 10);
    const perEth = times(10n ** decimals, 1 / ethPerToken);
    tokens.push(token);
    atomsPerEth.set(token, perEth);
    // Native atoms per atom × 1e18: 1e18 · 1e18 / (atoms per ETH).
    nativePrices.set(token, (E18 * E18) / perEth);
  }
  const pools: Pool[] = [];
  const pairs: [Address, Address][] = tokens.slice(1).map((t) => [weth, t]);
  for (let i = 1; i < count; i++) {
    for (let j = i + 1; j < count; j++) if (rand() < 0.3) pairs.push([tokens[i]!, tokens[j]!]);
  }
  for (const [a, b] of pairs) {
    const depth = logBetween(100, 2000);
    const off = rand() < 0.5 ? 1 : 1 + between(-0.03, 0.03);
    const [token0, token1] = a < b ? [a, b] : [b, a];
    pools.push({
      address: address(0x9000 + pools.length + seed * 64),
      token0,
      token1,
      reserve0: times(atomsPerEth.get(token0)!, depth),
      reserve1: times(atomsPerEth.get(token1)!, depth * off),
    });
  }
  const orders: OrderTerms[] = [];
  for (let n = 0; n < shape.orders; n++) {
    const sell = tokens[Math.floor(rand() * count)]!;
    let buy = sell;
    while (buy === sell) buy = tokens[Math.floor(rand() * count)]!;
    const worth = logBetween(0.05, 5);
    // Positive: the trader asks more than the market gives.
    const ask = between(-0.025, 0.02);
    const kind = rand() < 0.5 ? 'sell' : 'buy';
    const [sellAtMarket, buyAtMarket] = [
      times(atomsPerEth.get(sell)!, worth),
      times(atomsPerEth.get(buy)!, worth),
    ];
    orders.push({
      uid: hex(seed * 1_000_000 + n + 1, 56) as OrderUid,
      owner: address(0x7000 + (n % 50)),
      sellToken: sell,
      buyToken: buy,
      sellAmount: kind === 'sell' ? sellAtMarket : times(sellAtMarket, 1 / (1 + ask)),
      buyAmount: kind === 'sell' ? times(buyAtMarket, 1 + ask) : buyAtMarket,
      kind,
      partiallyFillable: rand() < (shape.partial ?? 0.4),
      executed: 0n,
    });
  }
  return { id: seed, orders, nativePrices, pools, wrappedNative: weth };
}
