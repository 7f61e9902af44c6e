/**
 * A solver reached over HTTP (DESIGN §7): each round, the auction is POSTed to its URL as JSON
 * (src/auction/solver-wire.ts) and its answer is read, bounded in size, before the round's
 * deadline. One attempt per round: the deadline leaves no time to retry.
 */
import type { Address } from '../domain/events.js';
import type { ProposedSolution } from '../domain/solver/types.js';
import type { Solver, SolverRound } from './solver.js';
import { parseSolveResponse, solveRequest } from './solver-wire.js';

export interface ExternalSolverConfig {
  /** Shown in the competition. */
  name: string;
  /** The address the solver competes as. */
  address: Address;
  /** Where the round is POSTed: an http(s) URL. */
  url: string;
}

export interface ExternalSolverOptions {
  /** Answers longer than this are refused without reading further. Default 10 MiB. */
  maxResponseBytes?: number;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** Of a non-2xx answer's body, at most this much is quoted in the error. */
const QUOTED_BODY_CHARS = 200;

/** Why an external solver gave no solutions this round. */
export class ExternalSolverError extends Error {
  constructor(
    readonly solver: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`solver ${solver} ${message}`, options);
    this.name = 'ExternalSolverError';
  }
}

/**
 * At most `limit` bytes of the answer's body: `complete` is false when there was more, which is
 * then left unread (the stream is cancelled, closing the connection).
 */
async function readUpTo(
  response: Response,
  limit: number,
): Promise<{ bytes: Uint8Array; complete: boolean }> {
  if (response.body === null) return { bytes: new Uint8Array(), complete: true };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: Buffer.concat(chunks), complete: true };
    if (total + value.byteLength > limit) {
      chunks.push(value.subarray(0, limit - total));
      await reader.cancel().catch(() => {});
      return { bytes: Buffer.concat(chunks), complete: false };
    }
    total += value.byteLength;
    chunks.push(value);
  }
}

/** The start of a body for an error message, read no further than needed. */
async function bodyExcerpt(response: Response): Promise<string> {
  const read = await readUpTo(response, 4 * QUOTED_BODY_CHARS).catch(() => null);
  if (read === null) return '(body unreadable)';
  const text = new TextDecoder().decode(read.bytes).trim();
  return text.length > QUOTED_BODY_CHARS || !read.complete
    ? `${text.slice(0, QUOTED_BODY_CHARS)}…`
    : text;
}

/**
 * The solver at `config.url`. Its `solve` rejects with an `ExternalSolverError` when the solver
 * is unreachable, does not answer by the round's deadline, the round is aborted, or the answer
 * is not a 2xx, too long, not JSON or not a valid `SolveResponse`; it never throws synchronously.
 * Throws at once on a URL that is not http(s): a configuration mistake.
 */
export function createExternalSolver(
  config: ExternalSolverConfig,
  options: ExternalSolverOptions = {},
): Solver {
  const parsed = URL.canParse(config.url) ? new URL(config.url) : null;
  if (parsed === null || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    throw new Error(`solver ${config.name}: URL ${config.url} is not http(s)`);
  const url: URL = parsed;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const solver = { name: config.name, address: config.address.toLowerCase() as Address };
  const fail = (message: string, cause?: unknown) =>
    new ExternalSolverError(solver.name, message, cause === undefined ? undefined : { cause });

  async function solve(round: SolverRound, signal: AbortSignal): Promise<ProposedSolution[]> {
    let body: string;
    try {
      body = JSON.stringify(solveRequest(round));
    } catch (error) {
      throw fail(`got no request: ${(error as Error).message}`, error);
    }
    // Timers take at most 2^31 − 1 ms; a deadline beyond that (~24 days) would fire at once.
    const untilDeadline = Math.min(round.deadline.getTime() - Date.now(), 2 ** 31 - 1);
    const deadline = AbortSignal.timeout(Math.max(0, untilDeadline));
    const combined = AbortSignal.any([signal, deadline]);
    /** A failure while talking to the solver, told apart from an abort or the deadline. */
    const transportFailure = (error: unknown, what: string): ExternalSolverError => {
      if (error instanceof ExternalSolverError) return error;
      if (signal.aborted) return fail('was cut off: the round was aborted', signal.reason);
      if (deadline.aborted)
        return fail(`did not answer by the deadline (${round.deadline.toISOString()})`);
      // fetch's own message is "fetch failed"; the reason (ECONNREFUSED, …) is its cause.
      const cause = (error as { cause?: unknown }).cause;
      const reason = cause instanceof Error ? cause.message : (error as Error).message;
      return fail(`${what} (${url.href}): ${reason}`, error);
    };

    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body,
        signal: combined,
      });
    } catch (error) {
      throw transportFailure(error, 'is unreachable');
    }

    let bytes: Uint8Array;
    try {
      if (!response.ok) {
        const excerpt = await bodyExcerpt(response);
        if (combined.aborted) throw new Error('aborted');
        throw fail(`answered HTTP ${response.status}${excerpt ? `: ${excerpt}` : ''}`);
      }
      const tooLong = () => fail(`answered more than the limit of ${maxBytes} bytes`);
      // A declared length over the limit is refused before reading anything.
      if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
        await response.body?.cancel().catch(() => {});
        throw tooLong();
      }
      const read = await readUpTo(response, maxBytes);
      if (!read.complete) throw tooLong();
      bytes = read.bytes;
    } catch (error) {
      throw transportFailure(error, 'broke off its answer');
    }

    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch (error) {
      throw fail(`answered invalid JSON: ${(error as Error).message}`, error);
    }
    try {
      return parseSolveResponse(json, solver);
    } catch (error) {
      throw fail(`answered an invalid SolveResponse: ${(error as Error).message}`, error);
    }
  }

  return { ...solver, solve };
}
