/** What every order event is made of: hex values, the signed order's fields, its hooks and its quote. */

export type Hex = `0x${string}`;
export type Address = Hex;
export type OrderUid = Hex;

export type OrderKind = 'sell' | 'buy';
export type SellTokenBalance = 'erc20' | 'external' | 'internal';
export type BuyTokenBalance = 'erc20' | 'internal';
export type SigningScheme = 'eip712' | 'ethsign' | 'presign' | 'eip1271';
export type OrderClass = 'market' | 'limit' | 'liquidity';

/** The order fields covered by the EIP-712 `Order` struct, in API form. */
export interface OrderData {
  sellToken: Address;
  buyToken: Address;
  /** null means "the owner" (signed as the zero address). */
  receiver: Address | null;
  sellAmount: string;
  buyAmount: string;
  validTo: number;
  /** The 32-byte app-data hash that was signed. */
  appData: Hex;
  feeAmount: string;
  kind: OrderKind;
  partiallyFillable: boolean;
  sellTokenBalance: SellTokenBalance;
  buyTokenBalance: BuyTokenBalance;
}

export interface Interaction {
  target: Address;
  value: string;
  callData: Hex;
}

/** The quote an order was linked to, as shown in the order's `quote` field. */
export interface LinkedQuote {
  id: number;
  gasAmount: string;
  gasPrice: string;
  sellTokenPrice: string;
  sellAmount: string;
  buyAmount: string;
  feeAmount: string;
  solver: Address;
  verified: boolean;
  metadata: Record<string, unknown>;
}
