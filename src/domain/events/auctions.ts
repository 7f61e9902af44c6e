/**
 * The autopilot's facts: each batch auction's competition and what became of its winners, as
 * their schemas (schemas/events/) declare them; and the order as solvers are handed it.
 */
import type {
  Address,
  Hex,
  Interaction,
  OrderClass,
  OrderData,
  OrderUid,
  SigningScheme,
} from './order-data.js';
import type {
  AuctionClosedV5,
  Filtered,
  SettlementFailedV1,
} from '../../../schemas/event-payloads.generated.js';

export type {
  AuctionClosedV5,
  SettlementFailedV1,
  SettlementSubmittedV1,
} from '../../../schemas/event-payloads.generated.js';

/** An order as an auction hands it to solvers (the reference's `AuctionOrder`). */
export interface AuctionOrder extends OrderData {
  uid: OrderUid;
  owner: Address;
  /** Unix seconds; the reference sends a number where its spec says string (§9.5). */
  created: number;
  /** Sell atoms (sell orders) or buy atoms (buy orders) executed in earlier batches. */
  executed: string;
  preInteractions: Interaction[];
  postInteractions: Interaction[];
  class: OrderClass;
  signingScheme: SigningScheme;
  signature: Hex;
  protocolFees: never[];
}

/**
 * Why a cut left an open order out of the auction. `UntrampolinedInteractions`: the order's
 * interactions call something other than the network's HooksTrampoline (placed before hooks
 * went through it), so it must never settle. `InvalidSignature`: an EIP-1271 owner contract no
 * longer accepts the order's signature. `DustOrder`: what is left of a partially fillable order
 * sells or buys nothing once rounded.
 */
export type FilterReason = Filtered[number]['reason'];

/**
 * An order as an auction took it in: its UID and what earlier batches had filled by the cut.
 * The rest of it is its `OrderPlaced`, which never changes: an auction does not copy it.
 */
export type AuctionedOrder = AuctionClosedV5['orders'][number];

/** One solver's proposal for an auction, as the competition ranked it (reference §6). */
export type RankedSolution = AuctionClosedV5['solutions'][number];

/** One traded order of a solution: what the contract will move for it. */
export type SolutionOrder = RankedSolution['orders'][number];

export type SettlementFailureReason = SettlementFailedV1['reason'];
