/**
 * CORS for browsers running the official SDK: a preflight for every header the SDK sends, with a
 * `bearerToken` and an `apiKey` set, is allowed, and may be cached. The headers are what the SDK
 * really sends (caught by a local server it is pointed at), not a list written here.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OrderBookApi, SupportedChainId, type ApiBaseUrls } from '@cowprotocol/cow-sdk';
import { expect } from 'chai';
import { suiteTestService } from '../../support/service.js';

/** A server that answers every request with a version string and keeps the requests' headers. */
async function headerCatcher(): Promise<{
  url: string;
  seen: IncomingHttpHeaders[];
  server: Server;
}> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res.setHeader('content-type', 'text/plain');
    res.end('v');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, server };
}

describe('HTTP: CORS', function () {
  this.timeout(60_000);
  const service = suiteTestService();

  async function preflight(requestHeaders: string[]) {
    const response = await fetch(`${service().mainnet}/api/v1/orders`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': requestHeaders.join(','),
      },
    });
    const allowed = (response.headers.get('access-control-allow-headers') ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase());
    return { response, allowed };
  }

  it('allows every header the official SDK sends, its bearer token and API key included', async () => {
    const catcher = await headerCatcher();
    try {
      // What this process's fetch sends of its own accord, to tell the SDK's headers apart.
      await fetch(`${catcher.url}/plain`);
      const api = new OrderBookApi({
        chainId: SupportedChainId.MAINNET,
        env: 'prod',
        baseUrls: { [SupportedChainId.MAINNET]: catcher.url } as ApiBaseUrls,
        bearerToken: 'a-token',
        apiKey: 'a-key',
        backoffOpts: { numOfAttempts: 1 },
      });
      await api.getVersion();
      const [plain, sdk] = catcher.seen as [IncomingHttpHeaders, IncomingHttpHeaders];
      const sent = Object.keys(sdk).filter((name) => !(name in plain));
      expect(sent).to.include.members(['authorization', 'x-api-key', 'content-type']);

      const { response, allowed } = await preflight(sent);
      expect(response.status).to.equal(204);
      expect(response.headers.get('access-control-allow-origin')).to.equal('*');
      expect(allowed).to.include.members(sent);
      expect(response.headers.get('access-control-allow-methods')).to.include('POST');
    } finally {
      catcher.server.close();
    }
  });

  it("allows the subscription routes' credentials", async () => {
    const { allowed } = await preflight(['x-signature', 'x-issued-at', 'x-api-key']);
    expect(allowed).to.include.members(['x-signature', 'x-issued-at', 'x-api-key']);
  });

  it('lets browsers cache a preflight, and shows them Retry-After', async () => {
    const { response } = await preflight(['content-type']);
    expect(Number(response.headers.get('access-control-max-age'))).to.be.at.least(600);
    const answer = await fetch(`${service().mainnet}/api/v1/version`, {
      headers: { Origin: 'https://app.example' },
    });
    expect(answer.headers.get('access-control-expose-headers')).to.include('Retry-After');
  });
});
