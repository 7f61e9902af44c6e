/** What the auctions tell whoever measures them (src/metrics), as they happen. */

/** How a solver's answer to an auction went: solutions taken in, or why none was. */
export type SolverAnswerOutcome = 'solutions' | 'empty' | 'timeout' | 'error' | 'refused';

/** Where a winner's settlement got to: sent, or how it ended. */
export type SettlementProgress =
  'submitted' | 'mined' | 'reverted' | 'timedOut' | 'simulationFailed' | 'notSent';

export interface AuctionObserver {
  /** An auction cut: the orders it holds and the orders left out, counted by reason. */
  cut(network: string, orders: number, filtered: ReadonlyMap<string, number>): void;
  /** A solver's answer (or none) to an auction, `seconds` after it was asked. */
  solverAnswered(
    network: string,
    solver: string,
    outcome: SolverAnswerOutcome,
    seconds: number,
  ): void;
  /** One of `solver`'s solutions won an auction. */
  won(network: string, solver: string): void;
  /** A winner's settlement moved on; `gasUsed` once mined (reverted ones use gas too). */
  settlement(network: string, solver: string, progress: SettlementProgress, gasUsed?: bigint): void;
}

/** Tells nobody. */
export const UNOBSERVED_AUCTIONS: AuctionObserver = {
  cut: () => undefined,
  solverAnswered: () => undefined,
  won: () => undefined,
  settlement: () => undefined,
};
