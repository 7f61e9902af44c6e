/** Structured JSON logs (pino), with the fields of the work running now (src/log-context.ts). */
import { pino, type DestinationStream, type Logger } from 'pino';
import { logFields } from './log-context.js';

/** Logs to stdout, or to `destination` (tests read what was logged). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, base: { service: 'batchbook' }, mixin: logFields };
  return destination ? pino(options, destination) : pino(options);
}
