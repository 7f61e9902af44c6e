/**
 * Read models batchbook no longer keeps. The start drops their tables and forgets their
 * checkpoints, so that a database an older version ran does not keep them for good (a replay's
 * fresh schema never has them).
 *
 * - `quotes`: quotes are kept in the quote store (src/commands/quote-store.ts) until they
 *   expire, no longer in the ledger.
 */
export const RETIRED_READ_MODELS: readonly { projector: string; tables: readonly string[] }[] = [
  { projector: 'quotes', tables: ['quotes'] },
];
