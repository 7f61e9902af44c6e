/**
 * A solver engine reached over HTTP, speaking the published solver engine API (DESIGN §7): each
 * round the `Auction` is POSTed to `{url}/solve` and the answer read, bounded in size, before
 * the auction's deadline; feedback is POSTed to `{url}/notify` with a short deadline of its own,
 * never waited for (an engine without that route, like the baseline, answers 404: ignored). One
 * attempt per round: the deadline leaves no time to retry.
 */
import type { Logger } from 'pino';
import type { Address } from '../domain/events.js';
import { MalformedAnswer, readAnswer } from './solver-api/answer.js';
import type { Auction, Notification, SolverAnswer } from './solver-api/types.js';
import { SolverFailure, type Solver } from './solver.js';

export interface ExternalSolverConfig {
  /** Shown in the competition. */
  name: string;
  /** The address it competes as: what the competition shows and the feedback concerns. */
  address: Address;
  /** The engine's base URL: batchbook POSTs to `{url}/solve` and `{url}/notify`. */
  url: string;
  /** Whether `POST /quote` asks it too. */
  quote: boolean;
}

export interface ExternalSolverOptions {
  logger: Logger;
  /** Answers longer than this are refused without reading further. Default 10 MiB. */
  maxResponseBytes?: number;
  /** How long a notification may take. Default 2 s. */
  notifyTimeoutMs?: number;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
const DEFAULT_NOTIFY_TIMEOUT_MS = 2_000;

/** Of a non-2xx answer's body, at most this much is quoted in the error. */
const QUOTED_BODY_CHARS = 200;

/** `path` under `base` as a directory, as the reference driver joins its endpoints. */
export function endpoint(base: URL, path: string): URL {
  const directory = new URL(base.href);
  if (!directory.pathname.endsWith('/')) directory.pathname += '/';
  return new URL(path, directory);
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
 * The engine at `config.url`. Its `solve` rejects with a `SolverFailure` when the engine is
 * unreachable, does not answer by the auction's deadline, the round is aborted, or the answer is
 * not a 2xx, too long, not JSON or not a valid answer; it never throws synchronously. Throws at
 * once on a URL that is not http(s): a configuration mistake.
 */
export function createExternalSolver(
  config: ExternalSolverConfig,
  options: ExternalSolverOptions,
): Solver {
  const parsed = URL.canParse(config.url) ? new URL(config.url) : null;
  if (parsed === null || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    throw new Error(`solver ${config.name}: URL ${config.url} is not http(s)`);
  const solveUrl = endpoint(parsed, 'solve');
  const notifyUrl = endpoint(parsed, 'notify');
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const notifyTimeoutMs = options.notifyTimeoutMs ?? DEFAULT_NOTIFY_TIMEOUT_MS;
  const solver = { name: config.name, address: config.address.toLowerCase() as Address };
  const logger = options.logger.child({ solver: solver.name });
  const fail = (kind: SolverFailure['kind'], message: string, cause?: unknown) =>
    new SolverFailure(solver.name, kind, message, cause === undefined ? undefined : { cause });

  async function solve(auction: Auction, signal: AbortSignal): Promise<SolverAnswer> {
    const body = JSON.stringify(auction);
    // Timers take at most 2^31 − 1 ms; a deadline beyond that (~24 days) would fire at once.
    const untilDeadline = Math.min(Date.parse(auction.deadline) - Date.now(), 2 ** 31 - 1);
    const deadline = AbortSignal.timeout(Math.max(0, untilDeadline));
    const combined = AbortSignal.any([signal, deadline]);
    /** A failure while talking to the engine, told apart from an abort or the deadline. */
    const transportFailure = (error: unknown, what: string): SolverFailure => {
      if (error instanceof SolverFailure) return error;
      // The round's own timer ends it at the deadline too: past the deadline, it is a time-out.
      if (deadline.aborted || Date.now() >= Date.parse(auction.deadline))
        return fail('timeout', `did not answer by the deadline (${auction.deadline})`);
      if (signal.aborted) return fail('error', 'was cut off: the round was aborted', signal.reason);
      // fetch's own message is "fetch failed"; the reason (ECONNREFUSED, …) is its cause.
      const cause = (error as { cause?: unknown }).cause;
      const reason = cause instanceof Error ? cause.message : (error as Error).message;
      return fail('error', `${what} (${solveUrl.href}): ${reason}`, error);
    };

    let response: Response;
    try {
      response = await fetch(solveUrl, {
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
        throw fail('error', `answered HTTP ${response.status}${excerpt ? `: ${excerpt}` : ''}`);
      }
      const tooLong = () => fail('error', `answered more than the limit of ${maxBytes} bytes`);
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
      throw fail('error', `answered invalid JSON: ${(error as Error).message}`, error);
    }
    try {
      return readAnswer(json);
    } catch (error) {
      if (!(error instanceof MalformedAnswer)) throw error;
      throw fail('error', `answered what the solver API does not allow: ${error.message}`, error);
    }
  }

  function notify(notification: Notification): void {
    void fetch(notifyUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(notification),
      signal: AbortSignal.timeout(notifyTimeoutMs),
    })
      .then(async (response) => {
        await response.body?.cancel();
        if (!response.ok && response.status !== 404)
          logger.debug({ status: response.status, kind: notification.kind }, 'notify refused');
      })
      .catch((err: unknown) => logger.debug({ err, kind: notification.kind }, 'notify failed'));
  }

  return { ...solver, quotes: config.quote, solve, notify };
}
