/**
 * The load generator the HTTP benchmarks share: a fixed list of requests sent over keep-alive
 * connections by `concurrency` workers, with the latency of every successful one.
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: Buffer;
}

export interface LoadResult {
  elapsedMs: number;
  /** Sorted latencies of the requests answered with the expected status, ms. */
  latencies: number[];
  statuses: Record<string, number>;
  firstError: string | null;
}

export interface Response {
  status: number;
  body: string;
}

const HEAD_END = Buffer.from('\r\n\r\n');

interface Waiting {
  bytes: Buffer;
  resolve(response: Response): void;
  reject(error: Error): void;
}

/** One keep-alive connection with at most one request in flight. */
class Connection {
  usable = true;
  private readonly socket: net.Socket;
  private current: Waiting | null = null;
  private received: Buffer[] = [];
  private size = 0;

  constructor(
    url: URL,
    private readonly onFree: (connection: Connection) => void,
  ) {
    this.socket = net.connect({ host: url.hostname, port: Number(url.port), noDelay: true });
    this.socket.on('data', (chunk: Buffer) => this.receive(chunk));
    this.socket.on('error', (error) => this.fail(error));
    this.socket.on('close', () => this.fail(new Error('connection closed by the server')));
  }

  send(job: Waiting): void {
    this.current = job;
    this.socket.write(job.bytes);
  }

  destroy(): void {
    this.usable = false;
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    this.received.push(chunk);
    this.size += chunk.length;
    const all = this.received.length === 1 ? chunk : Buffer.concat(this.received, this.size);
    this.received = [all];
    const headEnd = all.indexOf(HEAD_END);
    if (headEnd < 0) return;
    const head = all.toString('latin1', 0, headEnd);
    const status = Number(head.slice(9, 12));
    // These never carry a body (RFC 9110 §6.4.1), nor, from Node's server, a Content-Length.
    const bodyless = status === 204 || status === 304;
    const length = bodyless ? '0' : /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
    if (length === undefined) {
      this.fail(new Error(`answer without Content-Length: ${head.slice(0, 200)}`));
      return;
    }
    const bodyStart = headEnd + HEAD_END.length;
    if (this.size < bodyStart + Number(length)) return;
    const job = this.current!;
    this.current = null;
    this.received = [];
    this.size = 0;
    if (/\r\nconnection: *close/i.test(head)) this.destroy();
    job.resolve({
      status,
      body: all.toString('utf8', bodyStart, bodyStart + Number(length)),
    });
    this.onFree(this);
  }

  private fail(error: Error): void {
    // A socket reports an error and then its close; a connection we destroyed, its close.
    if (!this.usable && !this.current) return;
    const job = this.current;
    this.current = null;
    if (this.usable) this.destroy();
    job?.reject(error);
    this.onFree(this);
  }
}

/**
 * Sends requests over keep-alive HTTP/1.1 connections, at most `sockets` at a time, one request
 * in flight per connection (no pipelining: each connection behaves as one client would).
 *
 * Written on `net` rather than `http.request`: the load generator shares the service's two
 * cores, and Node's HTTP client costs tens of microseconds of CPU per request (the agent,
 * header objects, the response stream) that the figures would charge to the service. Requests
 * are serialised by hand and answers read only for their status and body (by Content-Length,
 * which the service always sends).
 */
export function httpClient(
  url: URL,
  sockets: number,
): { send(req: LoadRequest): Promise<Response>; close(): void } {
  const idle: Connection[] = [];
  const open = new Set<Connection>();
  const waiting: Waiting[] = [];
  const hostLine = `Host: ${url.host}\r\n`;

  const onFree = (connection: Connection) => {
    if (!connection.usable) {
      open.delete(connection);
      // The server may close a connection while it waits in `idle` (its keep-alive timeout).
      const index = idle.indexOf(connection);
      if (index >= 0) idle.splice(index, 1);
    }
    const next = waiting.shift();
    if (!next) {
      if (connection.usable) idle.push(connection);
    } else if (connection.usable) connection.send(next);
    else connect().send(next);
  };
  const connect = () => {
    const connection = new Connection(url, onFree);
    open.add(connection);
    return connection;
  };
  const send = (req: LoadRequest) =>
    new Promise<Response>((resolve, reject) => {
      const body = req.body ?? Buffer.alloc(0);
      const head =
        `${req.method} ${req.path} HTTP/1.1\r\n${hostLine}` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
      const job = { bytes: Buffer.concat([Buffer.from(head, 'latin1'), body]), resolve, reject };
      const connection = idle.pop() ?? (open.size < sockets ? connect() : undefined);
      if (connection) connection.send(job);
      else waiting.push(job);
    });
  const close = () => {
    for (const connection of open) connection.destroy();
    open.clear();
    idle.length = 0;
  };
  return { send, close };
}

export async function runLoad(
  url: URL,
  requests: readonly LoadRequest[],
  concurrency: number,
  okStatus: number,
): Promise<LoadResult> {
  const { send, close } = httpClient(url, concurrency);
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let firstError: string | null = null;
  let next = 0;

  const worker = async () => {
    for (let i = next++; i < requests.length; i = next++) {
      const started = performance.now();
      let status: number;
      let body: string;
      try {
        ({ status, body } = await send(requests[i]!));
      } catch (error) {
        status = 0;
        body = String(error);
      }
      const took = performance.now() - started;
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status === okStatus) latencies.push(took);
      else firstError ??= `${status} ${body.slice(0, 300)}`;
    }
  };

  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, requests.length) }, worker));
  const elapsedMs = performance.now() - started;
  close();
  latencies.sort((a, b) => a - b);
  return { elapsedMs, latencies, statuses, firstError };
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
