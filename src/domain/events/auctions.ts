/** The autopilot's facts: each batch auction's competition and what became of its winners. */
import type {
  Address,
  Hex,
  Interaction,
  OrderClass,
  OrderData,
  OrderUid,
  SigningScheme,
} from './order-data.js';

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
export type FilterReason =
  | 'InsufficientBalance'
  | 'MissingNativePrice'
  | 'UntrampolinedInteractions'
  | 'InvalidSignature'
  | 'DustOrder';

/**
 * An order as an auction took it in: its UID and what earlier batches had filled by the cut.
 * The rest of it is its `OrderPlaced`, which never changes: an auction does not copy it.
 */
export interface AuctionedOrder {
  uid: OrderUid;
  /** Sell atoms (sell orders) or buy atoms (buy orders) executed in earlier batches. */
  executed: string;
}

/** One traded order of a solution: what the contract will move for it. */
export interface SolutionOrder {
  uid: OrderUid;
  sellToken: Address;
  buyToken: Address;
  /** The trade's `executedAmount`: sell atoms (sell orders) or buy atoms (buy orders). */
  executedAmount: string;
  /** Sell atoms the owner pays (the fee included) and buy atoms the receiver gets. */
  sellAmount: string;
  buyAmount: string;
  /** Sell atoms the solver keeps as its fee (limit orders; the settlement contract holds them). */
  fee: string;
}

/** One solver's proposal for an auction, as the competition ranked it (reference §6). */
export interface RankedSolution {
  /** The solver's configured name ("builtin" for the one in process). */
  solver: string;
  /** The address the solver competes as (the reference's `solverAddress`). */
  solverAddress: Address;
  /**
   * The solver's own id of the solution, as its feedback (`/notify`) names it; null in auctions
   * recorded before solvers spoke the published solver engine API.
   */
  solutionId: number | null;
  /** CIP-38: surplus plus fees in native-token atoms, a decimal string. */
  score: string;
  /** 1 is the best: winners first, then by score, filtered-out solutions last. */
  rank: number;
  isWinner: boolean;
  /** Dropped by the fairness filter (reference §6 step 4). */
  filteredOut: boolean;
  /** CIP-67, winners only: the winners' total score had this solver not taken part. */
  referenceScore: string | null;
  /** One uniform price per traded token; each trade settles at prices of its own moving its amounts. */
  clearingPrices: Record<Address, string>;
  orders: SolutionOrder[];
  /** The solution's own calls before the transfers in (the orders' pre-hooks follow them). */
  preInteractions: Interaction[];
  /** Its calls between the transfers in and out. */
  interactions: Interaction[];
  /** Its calls after the transfers out (the orders' post-hooks follow them). */
  postInteractions: Interaction[];
}

/**
 * One batch auction of a network: what was cut (orders, prices at `block`), what was left out
 * and why, and every solution with its score and rank; winners are to settle by `deadline`.
 * Version 3 names the auctioned orders instead of copying them (v2 held each in full: megabytes
 * per auction at 10,000 open orders, every few seconds, in an append-only ledger); version 4
 * gives each solution its solver's id, each trade its solver's fee, and the calls its settlement
 * makes before and after the transfers; version 5 may record only what changed since an earlier
 * auction of the network (`base`; src/domain/auction-record.ts).
 */
export interface AuctionClosedV5 {
  network: string;
  /** Strictly increasing per service (a database sequence). */
  id: number;
  block: number;
  /** ISO 8601 UTC: the ledger's clock for the auction. */
  cutAt: string;
  /**
   * ISO 8601 UTC. Until then, the orders of a winning solution whose settlement neither failed
   * nor was observed on chain are in flight: later auctions leave them out.
   */
  deadline: string;
  /** The block by which the winners should have settled (the reference's `auctionDeadlineBlock`). */
  deadlineBlock: number;
  /**
   * The auction of the same network whose cut this one records the changes of; null: the
   * orders, prices and filtered orders below are the cut whole.
   */
  base: number | null;
  /** The auction's orders; with a base, those that entered or whose fill moved since it. */
  orders: AuctionedOrder[];
  /** Orders of the base this auction no longer holds (empty without a base). */
  left: OrderUid[];
  /**
   * Native-token price of each traded token, 1e18 = one native token per token atom × 1e18;
   * with a base, those that moved or are new.
   */
  prices: Record<Address, string>;
  /** Tokens the base priced that this auction does not (empty without a base). */
  unpriced: Address[];
  /** Orders left out and why; with a base, those newly left out or for another reason. */
  filtered: { uid: OrderUid; reason: FilterReason }[];
  /** Orders the base left out that this auction does not (empty without a base). */
  unfiltered: OrderUid[];
  /** Best first: `solutions[i].rank === i + 1`. */
  solutions: RankedSolution[];
}

/** A winning solution's `settle()` transaction was sent (not yet known to have landed). */
export interface SettlementSubmittedV1 {
  network: string;
  auctionId: number;
  /** The rank of the winning solution in its `AuctionClosed`. */
  rank: number;
  /** The driver account that sent it. */
  from: Address;
  txHash: Hex;
  nonce: number;
  gasLimit: string;
  submittedAt: string;
}

export type SettlementFailureReason = 'simulationFailed' | 'reverted' | 'timedOut' | 'notSent';

/** A winning solution did not settle: its orders return to the next auctions. */
export interface SettlementFailedV1 {
  network: string;
  auctionId: number;
  rank: number;
  /** Null when no transaction was sent (the simulation reverted, or sending failed). */
  txHash: Hex | null;
  reason: SettlementFailureReason;
  /** What the node said, for operators. */
  detail: string;
  failedAt: string;
}
