/**
 * Logs (pino): one JSON object per line for whatever reads them (a file, journald, a collector),
 * readable lines when a person watches, i.e. when stdout is a terminal, as pino users expect
 * from pino-pretty.
 */
import { pino, type Logger } from 'pino';
import { PinoPretty } from 'pino-pretty';

export function createLogger(level: string): Logger {
  const options = { level, base: { service: 'batchbook' } };
  if (!process.stdout.isTTY) return pino(options);
  // In this thread and synchronous, as pino's own JSON is: no line is lost at process.exit.
  return pino(options, PinoPretty({ destination: process.stdout.fd, sync: true }));
}
