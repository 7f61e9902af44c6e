/**
 * The optional second listener (`METRICS_PORT`): `GET /metrics` without the admin key, and
 * nothing else, for a port only the operator's scrapers can reach. The main port keeps its key.
 */
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsServer {
  /** e.g. http://127.0.0.1:9464 */
  url: string;
  close(): Promise<void>;
}

const answer = (res: http.ServerResponse, status: number, type: string, body: string) => {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
  res.end(body);
};

export async function startMetricsServer(
  registry: Registry,
  listen: { host: string; port: number },
): Promise<MetricsServer> {
  const server: Server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      const body = JSON.stringify({ errorType: 'NotFound', description: 'only GET /metrics here' });
      return answer(res, 404, 'application/json', body);
    }
    registry.metrics().then(
      (text) => answer(res, 200, registry.contentType, text),
      (error: unknown) => answer(res, 500, 'text/plain', `metrics failed: ${String(error)}`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
    server.listen(listen.port, listen.host);
  });
  const { port } = server.address() as AddressInfo;
  const host = listen.host === '0.0.0.0' ? '127.0.0.1' : listen.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
