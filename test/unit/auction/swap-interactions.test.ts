import { expect } from 'chai';
import { Interface } from 'ethers';
import { SETTLEMENT_CONTRACT } from '../../../src/domain/networks.js';
import type { Interaction } from '../../../src/domain/events.js';
import { amountOut } from '../../../src/domain/amm.js';
import { poolSwaps } from '../../../src/auction/swap-interactions.js';
import { DDAI, DUSD, E18, WETH, ddaiPool, devnetPool } from '../domain/solver/fixtures.js';

/** Decoded independently of the encoder's own ABI fragments. */
const abi = new Interface([
  'function transfer(address,uint256)',
  'function swap(uint256,uint256,address,bytes)',
]);

function decoded(interaction: Interaction) {
  const call = abi.parseTransaction({ data: interaction.callData })!;
  return {
    target: interaction.target,
    value: interaction.value,
    call: call.name,
    selector: call.selector,
    args: call.args.toArray().map((a: unknown) => (typeof a === 'string' ? a.toLowerCase() : a)),
  };
}

describe('pool swaps as settlement calls', () => {
  const settlement = SETTLEMENT_CONTRACT;

  it('asks the pair for amount0Out when the token out is its token0', () => {
    // The devnet pool's token0 is DUSD: selling WETH for DUSD takes DUSD out as amount0.
    const swap = { tokenIn: WETH, tokenOut: DUSD, amountIn: E18, amountOut: 2988n * E18 };
    const calls = poolSwaps(settlement).swap(devnetPool, swap).map(decoded);
    expect(calls).to.deep.equal([
      {
        target: WETH,
        value: '0',
        call: 'transfer',
        selector: '0xa9059cbb',
        args: [devnetPool.address, E18],
      },
      {
        target: devnetPool.address,
        value: '0',
        call: 'swap',
        selector: '0x022c0d9f',
        args: [2988n * E18, 0n, settlement, '0x'],
      },
    ]);
  });

  it('asks the pair for amount1Out when the token out is its token1', () => {
    const swap = { tokenIn: DUSD, tokenOut: WETH, amountIn: 3020n * E18, amountOut: E18 };
    const calls = poolSwaps(settlement).swap(devnetPool, swap).map(decoded);
    expect(calls.map((c) => [c.target, c.call, c.args])).to.deep.equal([
      [DUSD, 'transfer', [devnetPool.address, 3020n * E18]],
      [devnetPool.address, 'swap', [0n, E18, settlement, '0x']],
    ]);
  });

  it('keeps a two-pool route in order, each pair paying the settlement contract', () => {
    // DDAI → WETH through the WETH/DDAI pair (WETH is its token0), then WETH → DUSD.
    const swaps = poolSwaps(settlement);
    const calls = [
      ...swaps.swap(ddaiPool, {
        tokenIn: DDAI,
        tokenOut: WETH,
        amountIn: 3000n * E18,
        amountOut: 99n,
      }),
      ...swaps.swap(devnetPool, { tokenIn: WETH, tokenOut: DUSD, amountIn: 99n, amountOut: 7n }),
    ].map(decoded);
    expect(calls.map((c) => [c.target, c.call, c.args])).to.deep.equal([
      [DDAI, 'transfer', [ddaiPool.address, 3000n * E18]],
      [ddaiPool.address, 'swap', [99n, 0n, settlement, '0x']],
      [WETH, 'transfer', [devnetPool.address, 99n]],
      [devnetPool.address, 'swap', [7n, 0n, settlement, '0x']],
    ]);
  });

  it('refuses tokens the pool does not trade, and more than the pair gives for the input', () => {
    const swaps = poolSwaps(settlement);
    expect(() =>
      swaps.swap(devnetPool, { tokenIn: DDAI, tokenOut: WETH, amountIn: 1n, amountOut: 1n }),
    ).to.throw(/does not trade/);
    const most = amountOut(E18, devnetPool.reserve1, devnetPool.reserve0)!;
    expect(() =>
      swaps.swap(devnetPool, {
        tokenIn: WETH,
        tokenOut: DUSD,
        amountIn: E18,
        amountOut: most + 1n,
      }),
    ).to.throw(/gives at most/);
    expect(() =>
      swaps.swap(devnetPool, { tokenIn: WETH, tokenOut: DUSD, amountIn: E18, amountOut: 0n }),
    ).to.throw(/gives at most/);
  });

  it('counts each swap from the reserves the earlier ones through the pool left', () => {
    const swaps = poolSwaps(settlement);
    const first = amountOut(E18, devnetPool.reserve1, devnetPool.reserve0)!;
    swaps.swap(devnetPool, { tokenIn: WETH, tokenOut: DUSD, amountIn: E18, amountOut: first });
    // The same swap again gives less: the pool holds more WETH and less DUSD now.
    expect(() =>
      swaps.swap(devnetPool, { tokenIn: WETH, tokenOut: DUSD, amountIn: E18, amountOut: first }),
    ).to.throw(/gives at most/);
    const second = amountOut(E18, devnetPool.reserve1 + E18, devnetPool.reserve0 - first)!;
    expect(
      swaps.swap(devnetPool, { tokenIn: WETH, tokenOut: DUSD, amountIn: E18, amountOut: second }),
    ).to.have.length(2);
  });
});
