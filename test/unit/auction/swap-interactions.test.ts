import { expect } from 'chai';
import { Interface } from 'ethers';
import { SETTLEMENT_CONTRACT } from '../../../src/domain/networks.js';
import type { Interaction } from '../../../src/domain/events.js';
import { swapInteractions } from '../../../src/auction/swap-interactions.js';
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

describe('swapInteractions', () => {
  const settlement = SETTLEMENT_CONTRACT;

  it('asks the pair for amount0Out when the token out is its token0', () => {
    // The devnet pool's token0 is DUSD: selling WETH for DUSD takes DUSD out as amount0.
    const swap = {
      pool: devnetPool.address,
      tokenIn: WETH,
      tokenOut: DUSD,
      amountIn: E18,
      amountOut: 2988n * E18,
    };
    const calls = swapInteractions([swap], [devnetPool], settlement).map(decoded);
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
    const swap = {
      pool: devnetPool.address,
      tokenIn: DUSD,
      tokenOut: WETH,
      amountIn: 3010n * E18,
      amountOut: E18,
    };
    const calls = swapInteractions([swap], [devnetPool], settlement).map(decoded);
    expect(calls.map((c) => [c.target, c.call, c.args])).to.deep.equal([
      [DUSD, 'transfer', [devnetPool.address, 3010n * E18]],
      [devnetPool.address, 'swap', [0n, E18, settlement, '0x']],
    ]);
  });

  it('keeps a two-pool route in order, each pair paying the settlement contract', () => {
    // DDAI → WETH through the WETH/DDAI pair (WETH is its token0), then WETH → DUSD.
    const swaps = [
      {
        pool: ddaiPool.address,
        tokenIn: DDAI,
        tokenOut: WETH,
        amountIn: 3000n * E18,
        amountOut: 99n,
      },
      { pool: devnetPool.address, tokenIn: WETH, tokenOut: DUSD, amountIn: 99n, amountOut: 7n },
    ];
    const calls = swapInteractions(swaps, [devnetPool, ddaiPool], settlement).map(decoded);
    expect(calls.map((c) => [c.target, c.call, c.args])).to.deep.equal([
      [DDAI, 'transfer', [ddaiPool.address, 3000n * E18]],
      [ddaiPool.address, 'swap', [99n, 0n, settlement, '0x']],
      [WETH, 'transfer', [devnetPool.address, 99n]],
      [devnetPool.address, 'swap', [7n, 0n, settlement, '0x']],
    ]);
  });

  it('refuses a swap through a pool it was not given, or tokens the pool does not trade', () => {
    const swap = {
      pool: ddaiPool.address,
      tokenIn: DDAI,
      tokenOut: WETH,
      amountIn: 1n,
      amountOut: 1n,
    };
    expect(() => swapInteractions([swap], [devnetPool], settlement)).to.throw(/unknown pool/);
    expect(() =>
      swapInteractions([{ ...swap, pool: devnetPool.address }], [devnetPool], settlement),
    ).to.throw(/does not trade/);
  });
});
