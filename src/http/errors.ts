/**
 * Error envelopes. Order-book errors are `{errorType, description}` (plus `data` when there is
 * some), each errorType with its status (./error-status.ts); a client's mistake never becomes a
 * 500, nor does an unreachable database (503 `DatabaseUnavailable`, which the composition
 * root's translation at the commands and queries makes of the driver's errors: retry later).
 */
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { Rejection } from '../commands/rejection.js';
import type { ErrorType } from '../domain/errors.js';
import { AS_CONFIGURED, STATUS_OF } from './error-status.js';

export class ApiError extends Error {
  /** The errorType's status; a route whose reference answers otherwise names its own. */
  readonly status: number;

  constructor(
    readonly errorType: ErrorType,
    readonly description: string,
    readonly data?: unknown,
    status?: number,
  ) {
    const answered = status ?? STATUS_OF[errorType];
    super(`${answered} ${errorType}: ${description}`);
    this.name = 'ApiError';
    this.status = answered;
  }
}

/** Errors thrown by koa-bodyparser (raw-body / co-body) carry these types and statuses. */
function bodyParserError(error: unknown): ApiError | null {
  if (typeof error !== 'object' || error === null) return null;
  const { type, status } = error as { type?: unknown; status?: unknown };
  if (type === 'entity.too.large') {
    return new ApiError('PayloadTooLarge', 'request body exceeds the size limit');
  }
  if (type === 'entity.parse.failed' || (type === undefined && status === 400)) {
    return new ApiError('InvalidJson', 'request body is not valid JSON');
  }
  if (typeof type === 'string' && typeof status === 'number' && status >= 400 && status < 500) {
    // raw-body's own status for what it refused (an unsupported charset is a 415).
    return new ApiError('InvalidBody', (error as Error).message, undefined, status);
  }
  return null;
}

/** What a thrown error means to a client; null: a bug (500). */
export function toApiError(error: unknown): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error instanceof Rejection) {
    return new ApiError(error.errorType, error.description, error.data);
  }
  return bodyParserError(error);
}

/**
 * Whether an answer is the client's doing, no failure of the server's to log: a 4xx, or a 501
 * for a method nothing here implements (`PROPFIND`).
 */
export const clientCaused = (status: number): boolean => status < 500 || status === 501;

export function errorMiddleware(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const api = toApiError(error);
      if (api && (clientCaused(api.status) || AS_CONFIGURED.has(api.errorType))) {
        ctx.status = api.status;
        ctx.body = {
          errorType: api.errorType,
          description: api.description,
          ...(api.data === undefined ? {} : { data: api.data }),
        };
        return;
      }
      logFailure(logger, ctx, error, api);
      ctx.status = api?.status ?? 500;
      ctx.body = {
        errorType: api?.errorType ?? 'InternalServerError',
        description: api?.description ?? '',
      };
    }
  };
}

/** A request that failed on the server's side: an outage (503) is a dependency's, not a bug. */
export function logFailure(
  logger: Logger,
  ctx: { method: string; path: string },
  error: unknown,
  api: ApiError | null,
): void {
  if (api?.status === 503) {
    // A warning with its reason (the outage's own words, where it says them), no stack.
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const reason = cause instanceof Error ? cause.message : String(cause);
    logger.warn({ method: ctx.method, path: ctx.path, reason }, 'request failed');
  } else {
    logger.error({ err: error, method: ctx.method, path: ctx.path }, 'request failed');
  }
}
