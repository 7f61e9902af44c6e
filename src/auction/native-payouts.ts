/**
 * Orders buying native ETH (the buy-token marker `0xeeee…`), for the built-in solver, which works
 * in ERC-20s: it solves them as orders buying the wrapped native token, and their solutions pay
 * them out in ETH. The contract pays such an order from its own ETH balance at the marker's
 * clearing price, so the marker is priced as the wrapped token and the solution ends by
 * unwrapping exactly what those orders receive (the wrapped token reaches the contract from the
 * orders selling it and the pools' swaps, before the unwrap).
 */
import { Interface } from 'ethers';
import type { Address, Hex, Interaction, OrderUid } from '../domain/events.js';
import { NATIVE_TOKEN_MARKER } from '../domain/networks.js';
import { executedAmounts } from '../domain/solver/execution.js';
import type { Solution, SolverAuction, SolverOrder } from '../domain/solver/types.js';

export const WETH9 = new Interface(['function withdraw(uint256 amount)']);

/** The auction in ERC-20s, and how to pay its solutions' native-ETH buyers. */
export function erc20Auction(auction: SolverAuction): {
  auction: SolverAuction;
  payOut(solution: Solution): { clearingPrices: Solution['clearingPrices']; unwrap: Interaction[] };
} {
  const wrapped = auction.wrappedNative;
  const buysEth = new Map<OrderUid, SolverOrder>();
  const orders = auction.orders.map((order) => {
    if (order.buyToken !== NATIVE_TOKEN_MARKER) return order;
    const asErc20 = { ...order, buyToken: wrapped };
    buysEth.set(order.uid, asErc20);
    return asErc20;
  });
  // The wrapped token is worth what the ETH is, and may trade nowhere else in the auction.
  const nativePrices = new Map(auction.nativePrices);
  const ethPrice = nativePrices.get(NATIVE_TOKEN_MARKER);
  if (ethPrice !== undefined && !nativePrices.has(wrapped)) nativePrices.set(wrapped, ethPrice);
  return {
    auction: buysEth.size === 0 ? auction : { ...auction, orders, nativePrices },
    payOut(solution) {
      const prices = solution.clearingPrices;
      // Sound solutions only: every trade of theirs executes at these prices.
      const paid = solution.trades.reduce((sum, trade) => {
        const order = buysEth.get(trade.uid);
        return order ? sum + executedAmounts(order, trade.executedAmount, prices)!.buy : sum;
      }, 0n);
      if (paid === 0n) return { clearingPrices: prices, unwrap: [] };
      return {
        clearingPrices: new Map<Address, bigint>([
          ...prices,
          [NATIVE_TOKEN_MARKER, prices.get(wrapped)!],
        ]),
        unwrap: [
          {
            target: wrapped,
            value: '0',
            callData: WETH9.encodeFunctionData('withdraw', [paid]) as Hex,
          },
        ],
      };
    },
  };
}
