/**
 * Error envelopes. Order-book errors are `{errorType, description}` (plus `data` when there is
 * some) with the reference's statuses; a client's mistake never becomes a 500, nor does an
 * unreachable database (503 `DatabaseUnavailable`: retry later, like `ChainUnavailable`).
 */
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { Rejection } from '../commands/rejection.js';
import { isDatabaseUnavailable } from './database-unavailable.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorType: string,
    readonly description: string,
    readonly data?: unknown,
  ) {
    super(`${status} ${errorType}: ${description}`);
    this.name = 'ApiError';
  }
}

/** Statuses other than 400 for the errorTypes commands and queries produce (reference §1.3). */
const STATUS_BY_ERROR_TYPE: Readonly<Record<string, number>> = {
  WrongOwner: 401,
  Forbidden: 403,
  OrderNotFound: 404,
  NotFound: 404,
  RateLimited: 429,
  InternalServerError: 500,
  NetworkNotLive: 503,
  ChainUnavailable: 503,
  DatabaseUnavailable: 503,
};

export function statusOf(errorType: string): number {
  return STATUS_BY_ERROR_TYPE[errorType] ?? 400;
}

/** Errors thrown by koa-bodyparser (raw-body / co-body) carry these types and statuses. */
function bodyParserError(error: unknown): ApiError | null {
  if (typeof error !== 'object' || error === null) return null;
  const { type, status } = error as { type?: unknown; status?: unknown };
  if (type === 'entity.too.large') {
    return new ApiError(413, 'PayloadTooLarge', 'request body exceeds the size limit');
  }
  if (type === 'entity.parse.failed' || (type === undefined && status === 400)) {
    return new ApiError(400, 'InvalidJson', 'request body is not valid JSON');
  }
  if (typeof type === 'string' && typeof status === 'number' && status >= 400 && status < 500) {
    return new ApiError(status, 'InvalidBody', (error as Error).message);
  }
  return null;
}

/** What a thrown error means to a client; null: a bug (500). */
export function toApiError(error: unknown): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error instanceof Rejection) {
    return new ApiError(statusOf(error.errorType), error.errorType, error.description, error.data);
  }
  if (isDatabaseUnavailable(error)) {
    return new ApiError(503, 'DatabaseUnavailable', 'the database is unavailable; retry later');
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
      if (api && clientCaused(api.status)) {
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
    // A warning with its reason, no stack.
    const reason = error instanceof Error ? error.message : String(error);
    logger.warn({ method: ctx.method, path: ctx.path, reason }, 'request failed');
  } else {
    logger.error({ err: error, method: ctx.method, path: ctx.path }, 'request failed');
  }
}
