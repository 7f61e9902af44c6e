/** The API's facts about orders: placements, signed cancellations, quotes and app data. */
import type { ChainCoordinates } from './chain.js';
import type {
  Address,
  Hex,
  Interaction,
  LinkedQuote,
  OrderClass,
  OrderData,
  OrderUid,
  SigningScheme,
} from './order-data.js';

export interface OrderPlacedV1 {
  network: string;
  uid: OrderUid;
  owner: Address;
  order: OrderData;
  signingScheme: SigningScheme;
  /** Raw API signature bytes: 65 bytes for ECDSA, the contract signature for eip1271, `0x` for presign. */
  signature: Hex;
  class: OrderClass;
  /** ISO 8601 UTC, decided by the command handler from its clock. */
  creationDate: string;
  settlementContract: Address;
  /** The full app-data document whose keccak hash is `order.appData`, when known. */
  fullAppData: string | null;
  quoteId: number | null;
  quote: LinkedQuote | null;
  interactions: { pre: Interaction[]; post: Interaction[] };
}

export type CancellationSource = 'api' | 'chain';

export interface OrderCancelledV1 {
  network: string;
  uid: OrderUid;
  source: CancellationSource;
  /** Human-readable reason, e.g. "signed cancellation" or "invalidateOrder". */
  reason: string;
  cancelledAt: string;
  /** The address whose signature (api) or transaction (chain) cancelled the order. */
  by: Address;
  /** Chain coordinates for on-chain invalidations. */
  chain?: ChainCoordinates;
}

/** The order a quote prices, as the API's `OrderQuote` shows it (amounts after the fee). */
export type QuotedOrder = Omit<OrderData, 'partiallyFillable'> & { signingScheme: SigningScheme };

/** A price quote given to `from`; orders placed before `expiration` can link to it. */
export interface QuoteCreatedV1 {
  network: string;
  /** Strictly increasing per service (a database sequence). */
  id: number;
  from: Address;
  quote: QuotedOrder;
  /** The full app-data document, when the request carried one. */
  fullAppData: string | null;
  onchainOrder: boolean;
  gasAmount: string;
  gasPrice: string;
  /** Native-token atoms per sell-token atom, as a decimal string of a float (the reference's). */
  sellTokenPrice: string;
  solver: Address;
  verified: boolean;
  /** ISO 8601 UTC. */
  createdAt: string;
  expiration: string;
}

export interface AppDataRegisteredV1 {
  network: string;
  hash: Hex;
  fullAppData: string;
  registeredAt: string;
}
