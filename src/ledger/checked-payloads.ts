/**
 * A ledger that refuses an event whose payload its schema does not accept, before anything of
 * the append is written (DESIGN §4: payload schemas in schemas/events/). The ledger keeps every
 * event forever and every read model is built from it: a malformed event would be read, and
 * break or mislead the projectors, at every replay to come. Reads pass through unchanged.
 *
 * The check is handed in (the composition root passes schemas/event-payloads.ts), so the
 * adapters and their contract tests stay free of the domain's event types.
 */
import type { Ledger } from './port.js';
import { timedStep } from '../metrics/stage-timings.js';

/** Why a payload is not valid for its (type, version), or null when it is. */
export type PayloadCheck = (type: string, version: number, data: unknown) => string | null;

export class InvalidEventPayloadError extends Error {
  constructor(
    readonly stream: string,
    readonly type: string,
    readonly version: number,
    readonly problem: string,
  ) {
    super(`stream ${stream}: ${type} v${version} refused: ${problem}`);
    this.name = 'InvalidEventPayloadError';
  }
}

export function withPayloadChecks(ledger: Ledger, check: PayloadCheck): Ledger {
  return {
    async append(stream, events, expected) {
      for (const { type, version, data } of events) {
        const problem = timedStep(`ledger: payload check ${type}`, () =>
          check(type, version, data),
        );
        if (problem !== null) throw new InvalidEventPayloadError(stream, type, version, problem);
      }
      return ledger.append(stream, events, expected);
    },
    readStream: (stream) => ledger.readStream(stream),
    readAll: (after, batch) => ledger.readAll(after, batch),
    backlog: (after, cap) => ledger.backlog(after, cap),
    subscribe: (after, options) => ledger.subscribe(after, options),
    comparePositions: (a, b) => ledger.comparePositions(a, b),
    close: () => ledger.close(),
  };
}
