/** Tokens, pools and order builders shared by the solver tests. */
import type { Pool } from '../../../../src/domain/amm.js';
import type { Address, OrderUid } from '../../../../src/domain/events.js';
import type { SolverAuction, SolverOrder } from '../../../../src/domain/solver/types.js';

export const E18 = 10n ** 18n;
export const WETH: Address = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
export const DUSD: Address = '0x0000000000000000000000000000000000000001';
export const DDAI: Address = '0xffffffffffffffffffffffffffffffffffffffff';
const OWNER: Address = '0x1111111111111111111111111111111111111111';

export const uid = (n: number): OrderUid => `0x${n.toString(16).padStart(112, '0')}`;

export function order(
  n: number,
  fields: Pick<SolverOrder, 'sellToken' | 'buyToken' | 'sellAmount' | 'buyAmount'> &
    Partial<SolverOrder>,
): SolverOrder {
  return {
    uid: uid(n),
    owner: OWNER,
    kind: 'sell',
    partiallyFillable: false,
    executedSell: 0n,
    executedBuy: 0n,
    ...fields,
  };
}

/** The devnet's WETH/DUSD pair: 1,000 WETH against 3,000,000 DUSD. */
export const devnetPool: Pool = {
  address: '0x00000000000000000000000000000000000000f1',
  token0: DUSD,
  token1: WETH,
  reserve0: 3_000_000n * E18,
  reserve1: 1000n * E18,
};

/** DUSD at 1/3000 WETH, the devnet pool's price. */
export const devnetPrices = new Map<Address, bigint>([
  [WETH, E18],
  [DUSD, E18 / 3000n],
  [DDAI, E18 / 3000n],
]);

export function auction(orders: SolverOrder[], pools: Pool[] = [], id = 1): SolverAuction {
  return { id, orders, nativePrices: devnetPrices, pools, wrappedNative: WETH };
}
