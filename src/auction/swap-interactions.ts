/**
 * A Uniswap-V2 swap as calls the settlement contract makes: the input sent to the pair with
 * ERC-20 `transfer`, then the pair's `swap` paying the output back to the settlement contract
 * (UniswapV2Pair checks its balance against the reserves, so the transfer must come first).
 * Checked against the pair's own arithmetic first: a swap asking more than the pair gives for its
 * input, at the reserves the earlier swaps of the same settlement left, would revert.
 */
import { Interface } from 'ethers';
import { amountOut, type Pool } from '../domain/amm.js';
import type { Address, Hex, Interaction } from '../domain/events.js';

export const ERC20_TRANSFER = new Interface([
  'function transfer(address to, uint256 amount) returns (bool)',
]);
export const UNISWAP_V2_PAIR = new Interface([
  'function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes data)',
]);

export interface PoolSwap {
  tokenIn: Address;
  tokenOut: Address;
  amountIn: bigint;
  amountOut: bigint;
}

/**
 * Swaps through pools, in the order the settlement makes them: each pool's reserves move with
 * every swap through it. `swap` throws (naming the pool) where the pair would refuse.
 */
export function poolSwaps(settlement: Address): {
  swap(pool: Pool, swap: PoolSwap): Interaction[];
} {
  const reserves = new Map<Address, { reserve0: bigint; reserve1: bigint }>();
  return {
    swap(pool, { tokenIn, tokenOut, amountIn, amountOut: asked }) {
      const forward = tokenIn === pool.token0 && tokenOut === pool.token1;
      if (!forward && !(tokenIn === pool.token1 && tokenOut === pool.token0))
        throw new Error(`pool ${pool.address} does not trade ${tokenIn} for ${tokenOut}`);
      const { reserve0, reserve1 } = reserves.get(pool.address) ?? pool;
      const [reserveIn, reserveOut] = forward ? [reserve0, reserve1] : [reserve1, reserve0];
      const possible = amountOut(amountIn, reserveIn, reserveOut);
      if (possible === null || asked <= 0n || asked > possible)
        throw new Error(
          `pool ${pool.address} gives at most ${possible ?? 0n} for ${amountIn}, not ${asked}`,
        );
      const [inAfter, outAfter] = [reserveIn + amountIn, reserveOut - asked];
      reserves.set(pool.address, {
        reserve0: forward ? inAfter : outAfter,
        reserve1: forward ? outAfter : inAfter,
      });
      const [amount0Out, amount1Out] = forward ? [0n, asked] : [asked, 0n];
      return [
        {
          target: tokenIn,
          value: '0',
          callData: ERC20_TRANSFER.encodeFunctionData('transfer', [pool.address, amountIn]) as Hex,
        },
        {
          target: pool.address,
          value: '0',
          callData: UNISWAP_V2_PAIR.encodeFunctionData('swap', [
            amount0Out,
            amount1Out,
            settlement,
            '0x',
          ]) as Hex,
        },
      ];
    },
  };
}
