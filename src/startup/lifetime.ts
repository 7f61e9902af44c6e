/**
 * What the service has started, to stop in the reverse order, and how it reports failures that
 * its parts retry: warnings while it runs, debug lines once it is stopping (connections cut by
 * PostgreSQL shutting down on the same Ctrl-C are expected then).
 */
import type { Logger } from 'pino';

export class Lifetime {
  private readonly closers: (() => Promise<void>)[] = [];
  private stopping = false;

  constructor(private readonly logger: Logger) {}

  /** Runs `close` at the stop, before whatever was started earlier. */
  onStop(close: () => Promise<void>): void {
    this.closers.push(close);
  }

  /** Stops everything started, last first. */
  async stop(beforeClosing: () => Promise<void> = async () => undefined): Promise<void> {
    this.stopping = true;
    await beforeClosing();
    for (const close of this.closers.reverse()) await close();
    this.closers.length = 0;
  }

  report(message: string, err: unknown, fields: Record<string, unknown> = {}): void {
    if (this.stopping) this.logger.debug({ err, ...fields }, message);
    else this.logger.warn({ err, ...fields }, message);
  }

  /** A handler that reports its error as `message`. */
  warn(message: string): (err: unknown) => void {
    return (err) => this.report(message, err);
  }
}
