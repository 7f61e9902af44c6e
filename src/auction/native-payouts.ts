/**
 * Orders buying native ETH (the buy-token marker `0xeeee…`): solvers are sent them as orders
 * buying the wrapped native token, and the driver pays them out in ETH, as the reference driver
 * does. The contract pays such a trade from its own ETH balance at the marker's price, so the
 * marker is priced as the wrapped token, and the settlement unwraps exactly what those trades
 * receive once the wrapped token has come in (from the orders selling it and the solution's
 * swaps), before the transfers out.
 */
import { Interface } from 'ethers';
import type { Address, Hex, Interaction } from '../domain/events.js';

export const WETH9 = new Interface(['function withdraw(uint256 amount)']);

/** The call that turns `amount` of the wrapped native token the settlement holds into ETH. */
export function unwrap(wrappedNative: Address, amount: bigint): Interaction {
  return {
    target: wrappedNative,
    value: '0',
    callData: WETH9.encodeFunctionData('withdraw', [amount]) as Hex,
  };
}
