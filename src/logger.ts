/**
 * Logs (pino): one JSON object per line for whatever reads them (a file, journald, a collector),
 * readable lines when a person watches, i.e. when stdout is a terminal, as pino users expect
 * from pino-pretty. Every line carries the fields of the work running (src/log-context.ts): a
 * request's id.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import { PinoPretty } from 'pino-pretty';
import { logFields } from './log-context.js';

/** Logs to stdout, or to `destination` (tests read what was logged). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, base: { service: 'batchbook' }, mixin: logFields };
  if (destination) return pino(options, destination);
  if (!process.stdout.isTTY) return pino(options);
  // In this thread and synchronous, as pino's own JSON is: no line is lost at process.exit.
  return pino(options, PinoPretty({ destination: process.stdout.fd, sync: true }));
}
