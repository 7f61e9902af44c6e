/**
 * What the service thread and its auction thread tell each other of the auctions (./thread.ts,
 * ./worker.ts), beside the thread's life (src/threads/supervision-messages.ts). Only
 * structured-clonable values cross.
 */
import type { Config } from '../config.js';
import type { PostgresDeadlines } from '../postgres/connection-options.js';
import type { ClockShift } from '../service-clock.js';
import type { ErrorRecord } from '../threads/error-record.js';
import type { ObserverCall } from '../threads/observer-relay.js';

/** The thread's start parameters (its workerData): it reads no environment of its own. */
export interface AuctionThreadData {
  config: Config;
  databaseUrl: string;
  deadlines: PostgresDeadlines;
  /** Per live network, its node (the embedded devnet's or fork's among them). */
  rpcUrls: ReadonlyMap<string, string>;
  /** The live networks on a local anvil: blocks come only with transactions. */
  localNetworks: ReadonlySet<string>;
  clockShift: ClockShift;
  /** The service logger's level: the thread's lines go to the service's log. */
  logLevel: string;
}

export type FromAuctionThread =
  /** Asks whether the read models took in the ledger up to `position` (a bounded wait). */
  | { type: 'projected'; id: string; network: string; position: string }
  /** A call of one of the service's observers (its metrics): `auctions` or `rpc`. */
  | { type: 'observed'; call: ObserverCall }
  /** One line of the thread's log, formatted as the service's. */
  | { type: 'log'; line: string }
  /** A failure the thread could not log itself (while closing). */
  | { type: 'error'; error: ErrorRecord };

/** The answer to the `projected` question with this `id`. */
export type ToAuctionThread = { type: 'projected'; id: string; caughtUp: boolean };
