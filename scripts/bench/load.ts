/**
 * The load generator the HTTP benchmarks share: a fixed list of requests sent over keep-alive
 * connections by `concurrency` workers, with the latency of every successful one.
 */
import http from 'node:http';
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

/** Sends requests over keep-alive connections, at most `sockets` at a time. */
export function httpClient(
  url: URL,
  sockets: number,
): { send(req: LoadRequest): Promise<Response>; close(): void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  const send = (req: LoadRequest) =>
    new Promise<Response>((resolve, reject) => {
      const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json' };
      if (req.body) headers['content-length'] = req.body.length;
      const r = http.request(
        { agent, host: url.hostname, port: url.port, method: req.method, path: req.path, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
          );
          res.on('error', reject);
        },
      );
      r.on('error', reject);
      r.end(req.body);
    });
  return { send, close: () => agent.destroy() };
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
