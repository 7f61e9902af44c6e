/**
 * Requests Node's HTTP parser refuses before Koa sees them (a head over the 16 KiB header limit,
 * a malformed request line) get the order book's JSON error envelope too, not an empty body:
 * 431 `RequestHeaderFieldsTooLarge` or 400 `BadRequest`, then the connection closes, as Node's
 * own handler does.
 */
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

function answer(status: number, reason: string, errorType: string, description: string): string {
  const body = JSON.stringify({ errorType, description });
  return (
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

const TOO_LARGE = answer(
  431,
  'Request Header Fields Too Large',
  'RequestHeaderFieldsTooLarge',
  'the request line and headers exceed 16 KiB',
);
const MALFORMED = answer(400, 'Bad Request', 'BadRequest', 'the request is not valid HTTP/1.1');

export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Nobody is left to tell on a reset connection; and one whose response has begun must not
    // get a second (Node's own handler checks the same).
    const response = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
      socket.destroy();
      return;
    }
    socket.end(error.code === 'HPE_HEADER_OVERFLOW' ? TOO_LARGE : MALFORMED);
  });
}
