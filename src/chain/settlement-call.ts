/**
 * Calldata for GPv2Settlement `settle(tokens, clearingPrices, trades, interactions)`, built from
 * orders in the ledger's own form (API-form `OrderData` plus the API signature bytes).
 *
 * The contract does not take orders as the API shows them: tokens are indexes into the
 * settlement's token list, the order's enum fields travel packed into one `flags` word
 * (GPv2Trade), and the signature bytes depend on the scheme (GPv2Signing). The encodings here
 * follow @cowprotocol/contracts' `encodeTradeFlags` and `encodeSignatureData`
 * (lib/esm/settlement.js, sign.js); that package is not imported because it needs ethers v5.
 */
import {
  Interface,
  ZeroAddress,
  concat,
  getAddress,
  getBytes,
  hexlify,
  type InterfaceAbi,
} from 'ethers';
import settlementArtifact from '@cowprotocol/contracts/deployments/mainnet/GPv2Settlement.json' with { type: 'json' };
import type {
  Address,
  BuyTokenBalance,
  Hex,
  Interaction,
  OrderData,
  OrderKind,
  SellTokenBalance,
  SigningScheme,
} from '../domain/events.js';

export interface SettlementTrade {
  order: OrderData;
  /** Where the trade's sell and buy tokens, and so its prices, stand in the plan's `tokens`. */
  sellTokenIndex: number;
  buyTokenIndex: number;
  owner: Address;
  signingScheme: SigningScheme;
  /** As the API carries it: 65-byte r‖s‖v for ECDSA, the contract's bytes for eip1271, `0x` for presign. */
  signature: Hex;
  /**
   * For partially fillable orders: the sell amount (sell kind) or buy amount (buy kind) to
   * execute. The contract ignores it for fill-or-kill orders, which execute in full.
   */
  executedAmount: bigint;
}

export interface SettlementInteractions {
  pre: Interaction[];
  intra: Interaction[];
  post: Interaction[];
}

export interface SettlementPlan {
  /** A token may stand more than once: a trade settles at the prices its indexes point at. */
  tokens: Address[];
  /** One per token, same order: a trade's limit price is checked against prices[sell]/prices[buy]. */
  clearingPrices: bigint[];
  trades: SettlementTrade[];
  interactions?: SettlementInteractions;
}

/** The deployed settlement's ABI: events for log parsing, `settle`, `setPreSignature`, … */
export const settlementInterface = new Interface(settlementArtifact.abi as InterfaceAbi);

// GPv2Trade flag fields: each value is the option's index, shifted to the field's bit offset.
const KIND_FLAG: Record<OrderKind, number> = { sell: 0, buy: 1 };
// Index 1 (0b01) of the sell-token balance is unused: the contract reads 0b00 and 0b01 as erc20.
const SELL_BALANCE_FLAG: Record<SellTokenBalance, number> = {
  erc20: 0b00,
  external: 0b10,
  internal: 0b11,
};
const BUY_BALANCE_FLAG: Record<BuyTokenBalance, number> = { erc20: 0, internal: 1 };
const SCHEME_FLAG: Record<SigningScheme, number> = {
  eip712: 0b00,
  ethsign: 0b01,
  eip1271: 0b10,
  presign: 0b11,
};

export function tradeFlags(
  order: Pick<OrderData, 'kind' | 'partiallyFillable' | 'sellTokenBalance' | 'buyTokenBalance'>,
  scheme: SigningScheme,
): number {
  return (
    KIND_FLAG[order.kind] |
    ((order.partiallyFillable ? 1 : 0) << 1) |
    (SELL_BALANCE_FLAG[order.sellTokenBalance] << 2) |
    (BUY_BALANCE_FLAG[order.buyTokenBalance] << 4) |
    (SCHEME_FLAG[scheme] << 5)
  );
}

/**
 * The signature bytes the contract expects: ECDSA r‖s‖v as is (v 0/1 raised to 27/28, since the
 * contract's `ecrecover` knows only those), eip1271 `owner ‖ signature` (the contract calls
 * `owner.isValidSignature`), presign the owner's 20 bytes (the API's empty presign signature
 * carries nothing the contract reads).
 */
export function encodeTradeSignature(scheme: SigningScheme, owner: Address, signature: Hex): Hex {
  switch (scheme) {
    case 'eip712':
    case 'ethsign': {
      const bytes = getBytes(signature);
      if (bytes.length !== 65)
        throw new Error(`ECDSA signature must be 65 bytes, got ${bytes.length}`);
      if (bytes[64] === 0 || bytes[64] === 1) bytes[64] += 27;
      return hexlify(bytes) as Hex;
    }
    case 'eip1271':
      return concat([getAddress(owner), signature]).toLowerCase() as Hex;
    case 'presign':
      return getAddress(owner).toLowerCase() as Hex;
  }
}

const encodeInteraction = (interaction: Interaction) => ({
  target: interaction.target,
  value: BigInt(interaction.value),
  callData: interaction.callData,
});

/**
 * The `settle` calldata of `plan`. Throws when a trade's index points at no token, or at another
 * token than its order's.
 */
export function encodeSettle(plan: SettlementPlan): Hex {
  if (plan.clearingPrices.length !== plan.tokens.length) {
    throw new Error(
      `${plan.tokens.length} tokens but ${plan.clearingPrices.length} clearing prices`,
    );
  }
  const at = (index: number, token: Address) => {
    if (plan.tokens[index]?.toLowerCase() !== token.toLowerCase())
      throw new Error(`token ${index} of the settlement is not ${token}`);
    return index;
  };
  const trades = plan.trades.map((trade) => {
    const { order, owner, signingScheme, signature, executedAmount } = trade;
    return {
      sellTokenIndex: at(trade.sellTokenIndex, order.sellToken),
      buyTokenIndex: at(trade.buyTokenIndex, order.buyToken),
      receiver: order.receiver ?? ZeroAddress,
      sellAmount: BigInt(order.sellAmount),
      buyAmount: BigInt(order.buyAmount),
      validTo: order.validTo,
      appData: order.appData,
      feeAmount: BigInt(order.feeAmount),
      flags: tradeFlags(order, signingScheme),
      executedAmount,
      signature: encodeTradeSignature(signingScheme, owner, signature),
    };
  });
  const { pre, intra, post } = plan.interactions ?? { pre: [], intra: [], post: [] };
  return settlementInterface.encodeFunctionData('settle', [
    plan.tokens,
    plan.clearingPrices,
    trades,
    [pre.map(encodeInteraction), intra.map(encodeInteraction), post.map(encodeInteraction)],
  ]) as Hex;
}
