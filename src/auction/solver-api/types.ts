/**
 * The published solver engine API (reference/cow-solver-engine-openapi.yml; its Rust types are
 * cowprotocol/services `crates/solvers-dto`): what batchbook, as the driver, sends an engine and
 * what it reads back. Amounts are uint256 in decimal notation, addresses lowercase 0x-hex.
 *
 * Where the published document and the reference driver disagree, the request follows the
 * driver, which engines are built against (the baseline engine refuses the document's forms):
 * the signing schemes `ethsign` and `presign` in lowercase, an order's hooks as
 * `{target, value, callData}`, and `id: null` for a quote.
 */
import type { Address, Hex, OrderKind, OrderUid } from '../../domain/events.js';

/** A uint256 in decimal notation. */
export type Uint = string;

export interface Auction {
  /** The auction id in decimal, or null for a quote. */
  id: string | null;
  tokens: Record<Address, TokenInfo>;
  orders: Order[];
  liquidity: ConstantProductLiquidity[];
  /** Wei per gas the settlement is expected to pay. */
  effectiveGasPrice: Uint;
  /** ISO 8601: answers arriving later are not taken. */
  deadline: string;
  surplusCapturingJitOrderOwners: Address[];
}

export interface TokenInfo {
  decimals?: number;
  symbol?: string;
  /** Wei to buy 10^18 atoms of the token: what surplus is valued in. */
  referencePrice?: Uint;
  /** What the settlement contract itself holds of the token. */
  availableBalance: Uint;
  trusted: boolean;
}

export type SigningScheme = 'eip712' | 'ethsign' | 'presign' | 'eip1271';

export interface InteractionData {
  target: Address;
  value: Uint;
  callData: Hex;
}

export interface Order {
  uid: OrderUid;
  sellToken: Address;
  /** The wrapped native token for an order buying native ETH: the driver unwraps. */
  buyToken: Address;
  /** What is left to trade, the signed amounts scaled to the part not yet filled. */
  sellAmount: Uint;
  fullSellAmount: Uint;
  buyAmount: Uint;
  fullBuyAmount: Uint;
  /** Empty: batchbook charges no protocol fee. */
  feePolicies: never[];
  validTo: number;
  kind: OrderKind;
  receiver?: Address;
  owner: Address;
  partiallyFillable: boolean;
  preInteractions: InteractionData[];
  postInteractions: InteractionData[];
  sellTokenSource: 'erc20' | 'external' | 'internal';
  buyTokenDestination: 'erc20' | 'internal';
  /** A solver states a fee for every trade of a `limit` order, and none for a `market` one. */
  class: 'market' | 'limit';
  appData: Hex;
  signingScheme: SigningScheme;
  signature: Hex;
}

/** A Uniswap-V2 pair. */
export interface ConstantProductLiquidity {
  kind: 'constantProduct';
  /** Unique within the auction: what a `liquidity` interaction names. */
  id: string;
  address: Address;
  router: Address;
  gasEstimate: Uint;
  tokens: Record<Address, { balance: Uint }>;
  /** The share of each input the pool keeps, as a decimal fraction. */
  fee: string;
}

/**
 * A solution as batchbook reads it, numbers as integers: the engine may send amounts in decimal
 * or 0x-hex, ids as numbers or strings (solutions/parse.ts).
 */
export interface Solution {
  id: number;
  prices: ReadonlyMap<Address, bigint>;
  trades: Trade[];
  preInteractions: Call[];
  interactions: Interaction[];
  postInteractions: Call[];
  gas: bigint | null;
  /** Features batchbook does not execute: a solution using one is left out, with why. */
  unsupported: string[];
}

export type Trade =
  | { kind: 'fulfillment'; order: OrderUid; executedAmount: bigint; fee: bigint | null }
  | { kind: 'jit' };

export interface Call {
  target: Address;
  value: bigint;
  callData: Hex;
}

export interface Asset {
  token: Address;
  amount: bigint;
}

export type Interaction =
  | {
      kind: 'liquidity';
      id: string;
      inputToken: Address;
      outputToken: Address;
      inputAmount: bigint;
      outputAmount: bigint;
    }
  | {
      kind: 'custom';
      target: Address;
      value: bigint;
      callData: Hex;
      allowances: { token: Address; spender: Address; amount: bigint }[];
      inputs: Asset[];
      outputs: Asset[];
    };

/** What an engine answered: its solutions, or an error it chose to report. */
export type SolverAnswer = { solutions: Solution[] } | { error: { code: string; message: string } };

/** The feedback kinds of the published API that batchbook sends (`POST {engine}/notify`). */
export type NotificationKind =
  | { kind: 'timeout' }
  | { kind: 'emptySolution' }
  | { kind: 'duplicatedSolutionId' }
  | {
      kind: 'simulationFailed';
      block: number;
      tx: { from: Address; to: Address; input: Hex; value: Uint; accessList: [] };
      succeededOnce: boolean;
    }
  | { kind: 'invalidClearingPrices' }
  | { kind: 'missingPrice'; tokenAddress: Address }
  | { kind: 'invalidExecutedAmount' }
  | { kind: 'success'; transaction: Hex }
  | { kind: 'revert'; transaction: Hex }
  | { kind: 'fail' };

export type Notification = NotificationKind & {
  auctionId: string | null;
  solutionId: number | null;
};
