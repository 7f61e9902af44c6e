/* Generated from schemas/requests/ by `npm run generate:schema-types`: do not edit. */

/** 65 bytes r || s || v as 0x-hex */
export type EcdsaSignature = string;
export type EcdsaSigningScheme = 'eip712' | 'ethsign';
export type OrderUid = string;
/** 20-byte address as 0x-hex, checksummed or lowercase */
export type Address = string;
export type NullableAddress = Address | null;
/** unsigned integer amount as a decimal or 0x-hex string */
export type Amount = string;
export type HexBytes = string;
export type Bytes32 = string;
/** unsigned integer amount as a decimal string */
export type OrderQuoteBodyDecimalAmount = string;
/** @maxItems 128 */
export type OrderUidsBody = OrderUid[];
/** unix seconds; within 5 minutes of the server's clock */
export type SubscriptionCreateBodyIssuedAt = number;

export interface AppDataObjectBody {
  fullAppData: string;
}
export interface OrderCancellationBody {
  signature: EcdsaSignature;
  signingScheme: EcdsaSigningScheme;
}
export interface OrderCancellationsBody {
  /**
   * @minItems 1
   * @maxItems 128
   */
  orderUids: [OrderUid, ...OrderUid[]];
  signature: EcdsaSignature;
  signingScheme: EcdsaSigningScheme;
}
export interface OrderCreationBody {
  sellToken: Address;
  buyToken: Address;
  receiver?: NullableAddress;
  sellAmount: Amount;
  buyAmount: Amount;
  validTo: number;
  feeAmount: Amount;
  kind: 'sell' | 'buy';
  partiallyFillable: boolean;
  sellTokenBalance?: 'erc20' | 'external' | 'internal';
  buyTokenBalance?: 'erc20' | 'internal';
  signingScheme: 'eip712' | 'ethsign' | 'presign' | 'eip1271';
  signature: HexBytes;
  from?: NullableAddress;
  /** an i64, as the reference parses it; the bound is exclusive because 2^63 - 1 reads as 2^63 in a double */
  quoteId?: number | null;
  /** check the owner's balance and allowance for the full sell amount, not a token's worth */
  fullBalanceCheck?: boolean;
  /** the full app-data JSON document, or its 32-byte hash (legacy form) */
  appData: string;
  appDataHash?: Bytes32 | null;
}
/** OrderQuoteRequest. Which amount field goes with which kind, and validTo versus validFor, are checked by the quote command (it names the field). */
export interface OrderQuoteBody {
  sellToken: Address;
  buyToken: Address;
  receiver?: NullableAddress;
  from: Address;
  kind: 'sell' | 'buy';
  sellAmountBeforeFee?: OrderQuoteBodyDecimalAmount;
  sellAmountAfterFee?: OrderQuoteBodyDecimalAmount;
  buyAmountAfterFee?: OrderQuoteBodyDecimalAmount;
  validTo?: number;
  validFor?: number;
  /** the full app-data JSON document, or its 32-byte hash (legacy form) */
  appData?: string;
  appDataHash?: Bytes32 | null;
  sellTokenBalance?: 'erc20' | 'external' | 'internal';
  buyTokenBalance?: 'erc20' | 'internal';
  signingScheme?: 'eip712' | 'ethsign' | 'presign' | 'eip1271';
  onchainOrder?: boolean;
  verificationGasLimit?: number;
  priceQuality?: 'fast' | 'optimal' | 'verified';
  timeout?: number;
  /** accepted and ignored, as the reference */
  partiallyFillable?: boolean;
}
/** POST /accounts/{account}/subscriptions: a delivery channel, authorised by the account's EIP-712 signature (with issuedAt) or by the X-API-Key header */
export interface SubscriptionCreateBody {
  channel: {
    kind: 'webhook' | 'email' | 'webpush' | 'telegram';
  };
  issuedAt?: SubscriptionCreateBodyIssuedAt;
  signature?: EcdsaSignature;
}
/** DELETE /accounts/{account}/subscriptions/{id}: the optional body carrying the account's EIP-712 signature (the X-Signature and X-Issued-At headers may carry them instead) */
export interface SubscriptionRemoveBody {
  /** unix seconds; within 5 minutes of the server's clock */
  issuedAt?: number;
  signature?: EcdsaSignature;
}
/** POST /accounts/{account}/subscriptions/{id}/verification: the code the verification e-mail carried */
export interface SubscriptionVerifyBody {
  /** 16 letters and digits, dashes and spaces ignored */
  code: string;
}
