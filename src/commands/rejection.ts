/**
 * A command's refusal: one of batchbook's `errorType`s and a description for the client.
 * HTTP gives each errorType its status (src/http/error-status.ts); commands know nothing of HTTP.
 */
import type { ErrorType } from '../domain/errors.js';

export class Rejection extends Error {
  constructor(
    readonly errorType: ErrorType,
    readonly description: string,
    readonly data?: unknown,
    options?: { cause?: unknown },
  ) {
    super(`${errorType}: ${description}`, options);
    this.name = 'Rejection';
  }
}

export function reject(errorType: ErrorType, description: string, data?: unknown): never {
  throw new Rejection(errorType, description, data);
}
