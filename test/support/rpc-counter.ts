/**
 * A JSON-RPC proxy that keeps every call it forwards to a node (each entry of a batch as one),
 * so a test can count what the service asked its chain. The node's answers pass through as they
 * are.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RpcCall {
  method: string;
  params: unknown;
}

export interface RpcCounter {
  /** The proxy's JSON-RPC URL, to give the service instead of the node's. */
  url: string;
  /** Every call forwarded so far, in order. */
  readonly calls: readonly RpcCall[];
  close(): Promise<void>;
}

export async function startRpcCounter(target: string): Promise<RpcCounter> {
  const calls: RpcCall[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const parsed = JSON.parse(body) as RpcCall | RpcCall[];
      for (const { method, params } of [parsed].flat()) calls.push({ method, params });
      fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (answer) => {
          response.writeHead(answer.status, { 'content-type': 'application/json' });
          response.end(await answer.text());
        })
        .catch(() => response.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
