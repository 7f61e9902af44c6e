/**
 * A command's refusal: the reference's `errorType` and a description for the client.
 * HTTP maps the errorType to a status (src/http/error-status.ts); commands know nothing of HTTP.
 */
export class Rejection extends Error {
  constructor(
    readonly errorType: string,
    readonly description: string,
    readonly data?: unknown,
  ) {
    super(`${errorType}: ${description}`);
    this.name = 'Rejection';
  }
}

export function reject(errorType: string, description: string, data?: unknown): never {
  throw new Rejection(errorType, description, data);
}
