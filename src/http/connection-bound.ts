/**
 * A bound on the connections one client holds open at once. Each connection holds a socket and
 * its buffers until a deadline passes (a slow request's, an idle keep-alive's): without a bound
 * one client could hold thousands. A client is its peer address, an IPv6 one by its /64
 * (./client-address.ts). Past the bound a new connection is answered 429 `TooManyConnections`
 * and closed before Node's HTTP parser sees it, so nothing it sends is served.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { clientOf } from './client-address.js';
import { rawJsonAnswer } from './client-errors.js';

export interface ConnectionBound {
  max: number;
  /** How long a refused connection may stay open for its client to read the answer. */
  lingerMs: number;
}

const TOO_MANY_CONNECTIONS = rawJsonAnswer(
  'TooManyConnections',
  'too many connections from this client: reuse one, or close one first',
);

export function boundConnectionsPerClient(server: Server, bound: ConnectionBound): void {
  // Node's HTTP server takes each connection through its own 'connection' listener: take that
  // over, and hand it only the connections within the bound.
  const http = server.listeners('connection');
  server.removeAllListeners('connection');
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const client = clientOf(socket.remoteAddress ?? '');
    const count = open.get(client) ?? 0;
    if (count >= bound.max) return refuse(socket, bound.lingerMs);
    open.set(client, count + 1);
    socket.once('close', () => {
      const left = open.get(client)! - 1;
      if (left === 0) open.delete(client);
      else open.set(client, left);
    });
    for (const listener of http) listener.call(server, socket);
  });
}

function refuse(socket: Socket, lingerMs: number): void {
  socket.on('error', () => socket.destroy());
  socket.setTimeout(lingerMs, () => socket.destroy());
  // What the client sends meanwhile is read and dropped: closing on unread data would reset the
  // connection, and the answer with it.
  socket.resume();
  socket.end(TOO_MANY_CONNECTIONS());
}
