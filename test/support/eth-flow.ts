/**
 * Eth-flow orders as a trader places them: straight through the devnet's CoWSwapEthFlow
 * (`createOrder` with the ETH, `invalidateOrder`), and the UID the order book gives them.
 */
import { Interface, type JsonRpcProvider } from 'ethers';
import { ethFlowArtifact } from '../../src/chain/devnet/artifacts.js';
import { sendFromNode } from '../../src/chain/devnet/node-client.js';
import { computeOrderUid, domainSeparator, orderDigest } from '../../src/domain/eip712.js';
import type { Address, Hex, OrderUid } from '../../src/domain/events.js';
import { ETH_FLOW_CONTRACT, SETTLEMENT_CONTRACT } from '../../src/domain/networks.js';

export const ETH_FLOW = new Interface(ethFlowArtifact().abi);

export interface EthFlowOrder {
  buyToken: Address;
  receiver: Address;
  sellAmount: bigint;
  buyAmount: bigint;
  appData: Hex;
  feeAmount: bigint;
  validTo: number;
  partiallyFillable: boolean;
  quoteId: bigint;
}

/** The UID of the settlement order an eth-flow order becomes on the chain `chainId`. */
export function ethFlowUid(order: EthFlowOrder, weth: Address, chainId: number): OrderUid {
  const digest = orderDigest(
    {
      sellToken: weth,
      buyToken: order.buyToken,
      receiver: order.receiver,
      sellAmount: order.sellAmount.toString(),
      buyAmount: order.buyAmount.toString(),
      validTo: 0xffffffff,
      appData: order.appData,
      feeAmount: order.feeAmount.toString(),
      kind: 'sell',
      partiallyFillable: order.partiallyFillable,
      sellTokenBalance: 'erc20',
      buyTokenBalance: 'erc20',
    },
    domainSeparator(chainId, SETTLEMENT_CONTRACT),
  );
  return computeOrderUid(digest, ETH_FLOW_CONTRACT, 0xffffffff);
}

/** Sends `fn(order)` to the eth-flow contract from `from` (an unlocked or impersonated account). */
export function callEthFlow(
  provider: JsonRpcProvider,
  from: Address,
  fn: 'createOrder' | 'invalidateOrder',
  order: EthFlowOrder,
): Promise<unknown> {
  return sendFromNode(provider, {
    from,
    to: ETH_FLOW_CONTRACT,
    data: ETH_FLOW.encodeFunctionData(fn, [order]),
    ...(fn === 'createOrder' ? { value: order.sellAmount + order.feeAmount } : {}),
  });
}
