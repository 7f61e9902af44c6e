/**
 * Requests Node's HTTP server refuses before Koa sees them (a head over the 16 KiB header limit,
 * a malformed request line, a request not in within its deadline) get the order book's JSON
 * error envelope too, not an empty body: 431 `RequestHeaderFieldsTooLarge`, 400 `BadRequest` or
 * 408 `RequestTimeout`, then the connection closes, as Node's own handler does.
 */
import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorType } from '../domain/errors.js';
import { STATUS_OF } from './error-status.js';
import { REQUEST_ID_HEADER } from './request-log.js';

/**
 * A whole HTTP/1.1 answer with a JSON error body, to write straight to a socket: each answer
 * made carries a request id of its own, as every response does.
 */
export function rawJsonAnswer(errorType: ErrorType, description: string): () => string {
  const status = STATUS_OF[errorType];
  const body = JSON.stringify({ errorType, description });
  const head =
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n`;
  return () => `${head}${REQUEST_ID_HEADER}: ${randomUUID()}\r\n\r\n${body}`;
}

const TOO_LARGE = rawJsonAnswer(
  'RequestHeaderFieldsTooLarge',
  'the request line and headers exceed 16 KiB',
);
const MALFORMED = rawJsonAnswer('BadRequest', 'the request is not valid HTTP/1.1');
const TIMED_OUT = rawJsonAnswer('RequestTimeout', 'the request did not arrive within the deadline');

const ANSWERS: Readonly<Record<string, () => string>> = {
  HPE_HEADER_OVERFLOW: TOO_LARGE,
  ERR_HTTP_REQUEST_TIMEOUT: TIMED_OUT,
};

export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Nobody is left to tell on a reset connection; and one whose response has begun must not
    // get a second (Node's own handler checks the same).
    const response = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
      socket.destroy();
      return;
    }
    socket.end((ANSWERS[error.code ?? ''] ?? MALFORMED)());
  });
}
