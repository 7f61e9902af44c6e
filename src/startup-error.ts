/**
 * A start that cannot go on for a reason the operator can act on (a port taken, a data directory
 * in use, a server that would not start): `npm start` prints its message as one line, with no
 * stack, and exits.
 */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}
