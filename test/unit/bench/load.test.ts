import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { expect } from 'chai';
import { httpClient, runLoad } from '../../../scripts/bench/support/load.js';
import { waitFor, withDeadline } from '../../support/wait.js';

/** A real HTTP server on a free port, counting the connections it accepted. */
async function testServer(
  answer: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void,
): Promise<{ url: URL; http: http.Server; connections: () => number; close(): Promise<void> }> {
  let connections = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => answer(req, Buffer.concat(chunks).toString(), res));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}`),
    http: server,
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('the benchmarks’ HTTP load generator', () => {
  it('sends method, path and body and reads status and body, over at most `sockets` connections', async () => {
    const server = await testServer((req, body, res) => {
      res.statusCode = req.method === 'POST' ? 201 : 200;
      res.end(JSON.stringify({ method: req.method, path: req.url, body }));
    });
    const client = httpClient(server.url, 3);
    try {
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          client.send(
            i % 2
              ? { method: 'POST', path: `/p/${i}`, body: Buffer.from(`{"n":${i},"é":"ü"}`) }
              : { method: 'GET', path: `/g/${i}` },
          ),
        ),
      );
      answers.forEach((answer, i) => {
        expect(answer.status).to.equal(i % 2 ? 201 : 200);
        expect(JSON.parse(answer.body)).to.deep.equal(
          i % 2
            ? { method: 'POST', path: `/p/${i}`, body: `{"n":${i},"é":"ü"}` }
            : { method: 'GET', path: `/g/${i}`, body: '' },
        );
      });
      expect(server.connections()).to.equal(3);
    } finally {
      client.close();
      await server.close();
    }
  });

  it('reads a body that arrives in several chunks', async () => {
    const big = 'x'.repeat(1_000_000);
    const server = await testServer((_req, _body, res) => {
      res.setHeader('content-length', big.length);
      res.write(big.slice(0, 10));
      setImmediate(() => res.end(big.slice(10)));
    });
    const client = httpClient(server.url, 1);
    try {
      const answer = await client.send({ method: 'GET', path: '/' });
      expect(answer.body).to.equal(big);
    } finally {
      client.close();
      await server.close();
    }
  });

  it('reads answers without a body, and refuses one whose length it cannot know', async () => {
    const server = await testServer((req, _body, res) => {
      if (req.url === '/chunked') {
        res.write('"a"');
        res.end();
        return;
      }
      res.statusCode = 204;
      res.end();
    });
    const client = httpClient(server.url, 1);
    try {
      expect(await client.send({ method: 'GET', path: '/empty' })).to.deep.equal({
        status: 204,
        body: '',
      });
      let failure: unknown = null;
      await client.send({ method: 'GET', path: '/chunked' }).catch((error: unknown) => {
        failure = error;
      });
      expect(String(failure)).to.match(/without Content-Length/);
      expect((await client.send({ method: 'GET', path: '/again' })).status).to.equal(204);
    } finally {
      client.close();
      await server.close();
    }
  });

  it('opens a new connection when the server closes one, and reports a connection lost mid-request', async () => {
    let served = 0;
    const server = await testServer((req, _body, res) => {
      served++;
      if (req.url === '/drop') {
        req.socket.destroy();
        return;
      }
      res.setHeader('connection', 'close');
      res.end('"ok"');
    });
    const client = httpClient(server.url, 1);
    try {
      const first = await client.send({ method: 'GET', path: '/a' });
      const second = await client.send({ method: 'GET', path: '/b' });
      expect([first.body, second.body]).to.deep.equal(['"ok"', '"ok"']);
      expect(server.connections()).to.equal(2);
      let failure: unknown = null;
      await client.send({ method: 'GET', path: '/drop' }).catch((error: unknown) => {
        failure = error;
      });
      expect(failure).to.be.instanceOf(Error);
      expect((await client.send({ method: 'GET', path: '/c' })).body).to.equal('"ok"');
      expect(served).to.equal(4);
    } finally {
      client.close();
      await server.close();
    }
  });

  it('sends on a new connection once the server has closed an idle one', async () => {
    let closed = 0;
    const server = await testServer((_req, _body, res) => res.end('"ok"'));
    server.http.keepAliveTimeout = 50;
    server.http.on('connection', (socket: Socket) => socket.on('close', () => closed++));
    const client = httpClient(server.url, 4);
    try {
      await client.send({ method: 'GET', path: '/a' });
      await waitFor(() => closed === 1, { timeoutMs: 5_000, description: 'the idle close' });
      const second = client.send({ method: 'GET', path: '/b' });
      expect((await withDeadline(second, 5_000, 'the second answer')).body).to.equal('"ok"');
      expect(server.connections()).to.equal(2);
    } finally {
      client.close();
      await server.close();
    }
  });

  it('runLoad counts statuses and keeps the latencies of the expected ones, sorted', async () => {
    const server = await testServer((req, _body, res) => {
      res.statusCode = Number(req.url!.slice(1)) % 3 === 0 ? 404 : 200;
      res.end('{}');
    });
    try {
      const requests = Array.from({ length: 30 }, (_, i) => ({
        method: 'GET' as const,
        path: `/${i}`,
      }));
      const result = await runLoad(server.url, requests, 4, 200);
      expect(result.statuses).to.deep.equal({ 200: 20, 404: 10 });
      expect(result.latencies).to.have.length(20);
      expect(result.latencies).to.deep.equal([...result.latencies].sort((a, b) => a - b));
      expect(result.firstError).to.match(/^404 /);
    } finally {
      await server.close();
    }
  });
});
