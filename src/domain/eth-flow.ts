/**
 * Eth-flow orders: orders selling native ETH, placed on chain through a CoWSwapEthFlow contract,
 * which owns them and signs them by EIP-1271 (reference §3; cowprotocol/ethflowcontract). What
 * the chain says of one is its `EthFlowOrderPlaced`; the rest of batchbook reads it as the
 * placement of an EIP-1271 order whose one pre-interaction wraps the contract's ETH.
 */
import type {
  Address,
  EthFlowOrderPlacedV1,
  Hex,
  Interaction,
  OrderData,
  OrderPlacedV1,
  PlacementError,
} from './events.js';
import { SETTLEMENT_CONTRACT, type Network } from './networks.js';

/** `wrapAll()`: what the settlement calls on the contract before it pulls an order's WETH. */
export const WRAP_ALL_CALL: Hex = '0x4c84c1c8';

/** The settlement order of every eth-flow order never expires (its trader's deadline does). */
export const ETH_FLOW_VALID_TO = 0xffffffff;

export const wrapAllInteraction = (ethFlowContract: Address): Interaction => ({
  target: ethFlowContract,
  value: '0',
  callData: WRAP_ALL_CALL,
});

/** Whether `interaction` is the `wrapAll` of one of the network's eth-flow contracts. */
export function isEthFlowWrap(
  network: Pick<Network, 'ethFlowContracts'>,
  interaction: Interaction,
): boolean {
  return (
    network.ethFlowContracts.includes(interaction.target) &&
    interaction.callData === WRAP_ALL_CALL &&
    interaction.value === '0'
  );
}

/**
 * The placement an eth-flow order amounts to: signed by EIP-1271 by its owner, created at its
 * block's time, with no app-data document or quote known, and the contract's `wrapAll` run
 * before its first fill. A zero fee makes it a limit order, as in the reference.
 */
export function ethFlowPlacement(d: EthFlowOrderPlacedV1): OrderPlacedV1 {
  return {
    network: d.network,
    uid: d.uid,
    owner: d.owner,
    order: d.order,
    signingScheme: 'eip1271',
    signature: d.signature,
    class: d.order.feeAmount === '0' ? 'limit' : 'market',
    creationDate: d.placedAt,
    settlementContract: SETTLEMENT_CONTRACT,
    fullAppData: null,
    quoteId: null,
    quote: null,
    interactions: { pre: [wrapAllInteraction(d.ethFlowContract)], post: [] },
  };
}

/** What a placement log states, decoded; `dataLength` is that of its extra `data` bytes. */
export interface PlacementStatement {
  ethFlowContract: Address;
  wrappedNativeToken: Address;
  order: OrderData;
  /** 0: EIP-1271, 1: pre-sign. */
  signingScheme: number;
  signature: Hex;
  /** The eth-flow `data`: quote id and the trader's deadline, when it has their 12 bytes. */
  extra: { quoteId: string; userValidTo: number } | null;
  /** Whether the contract holds the order's hash for the sender with that deadline. */
  heldByContract: boolean;
}

/**
 * Why the order cannot trade (reference's placement errors), or null. Anything but the
 * contract's own placement is `invalidOrderData`: another owner or scheme, an order it does not
 * hold as stated, or one it could not have placed (not selling its WETH for ever, to a zero
 * receiver, from ERC-20 balances); a signed fee is `nonZeroFee`.
 */
export function placementError(p: PlacementStatement): PlacementError | null {
  const o = p.order;
  const ownOrder =
    p.signingScheme === 0 &&
    p.signature === p.ethFlowContract &&
    p.extra !== null &&
    p.heldByContract &&
    o.sellToken === p.wrappedNativeToken &&
    o.validTo === ETH_FLOW_VALID_TO &&
    o.kind === 'sell' &&
    o.receiver !== null &&
    o.sellTokenBalance === 'erc20' &&
    o.buyTokenBalance === 'erc20';
  if (!ownOrder) return 'invalidOrderData';
  return o.feeAmount === '0' ? null : 'nonZeroFee';
}
