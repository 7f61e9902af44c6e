/**
 * The built-in solver's Uniswap-V2 swaps as calls the settlement contract makes: for each swap,
 * the input sent to the pair with ERC-20 `transfer`, then the pair's `swap` paying the output
 * back to the settlement contract (UniswapV2Pair checks its balance against the reserves, so
 * the transfer must come first). A route's second swap spends what its first one paid in.
 */
import { Interface } from 'ethers';
import type { Pool } from '../domain/amm.js';
import type { Swap } from '../domain/solver/types.js';
import type { Address, Hex, Interaction } from '../domain/events.js';

export const ERC20_TRANSFER = new Interface([
  'function transfer(address to, uint256 amount) returns (bool)',
]);
export const UNISWAP_V2_PAIR = new Interface([
  'function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes data)',
]);

/** Two interactions per swap, in the swaps' order. Throws on a swap through an unknown pool. */
export function swapInteractions(
  swaps: readonly Swap[],
  pools: readonly Pool[],
  settlement: Address,
): Interaction[] {
  const byAddress = new Map(pools.map((pool) => [pool.address, pool]));
  return swaps.flatMap((swap): Interaction[] => {
    const pool = byAddress.get(swap.pool);
    if (pool === undefined) throw new Error(`swap through unknown pool ${swap.pool}`);
    const tokens = [pool.token0, pool.token1];
    if (
      !tokens.includes(swap.tokenIn) ||
      !tokens.includes(swap.tokenOut) ||
      swap.tokenIn === swap.tokenOut
    )
      throw new Error(`pool ${pool.address} does not trade ${swap.tokenIn} for ${swap.tokenOut}`);
    const [amount0Out, amount1Out] =
      swap.tokenOut === pool.token0 ? [swap.amountOut, 0n] : [0n, swap.amountOut];
    return [
      {
        target: swap.tokenIn,
        value: '0',
        callData: ERC20_TRANSFER.encodeFunctionData('transfer', [
          pool.address,
          swap.amountIn,
        ]) as Hex,
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
  });
}
