/**
 * Requests can be followed (issue 21, item 3): every response carries `X-Request-Id`, the
 * client's when well formed and a new UUID otherwise (also on the answers Node's server gives
 * before Koa sees a request); every line logged while a request is handled carries its id,
 * concurrent requests each their own; one access-log line per request, which `ACCESS_LOG=false`
 * turns off.
 */
import net from 'node:net';
import { expect } from 'chai';
import { batchLockKey } from '../../../projections/locks.js';
import { capturingLogger } from '../delivery/fixtures.js';
import { holdLock } from '../../support/held-lock.js';
import { startTestService, type TestService } from '../../support/service.js';
import { waitFor } from '../../support/wait.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Sends `head` (and nothing else) on a connection of its own; answers all that comes back. */
function rawExchange(url: string, head: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) }, () => socket.write(head));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
  });
}

/** The `X-Request-Id` of a raw answer, or null. */
const rawRequestId = (answer: string) =>
  /\r\nX-Request-Id: ([^\r]*)\r\n/i.exec(answer)?.[1] ?? null;

const request = (id?: string) =>
  'GET /devnet/api/v1/version HTTP/1.1\r\nHost: batchbook\r\nConnection: close\r\n' +
  (id === undefined ? '' : `X-Request-Id: ${id}\r\n`) +
  '\r\n';

describe('HTTP: request ids', function () {
  this.timeout(60_000);
  let service: TestService;
  const log = capturingLogger();

  before(async () => {
    service = await startTestService({
      logger: log.logger,
      // A write answers without waiting for its projection, and logs that it did not: a line
      // logged while the request is handled, deep in the service.
      env: { READ_YOUR_WRITES_TIMEOUT_MS: '0' },
    });
  });
  after(() => service.stop());

  const idOf = async (url: string, init: RequestInit = {}) => {
    const response = await fetch(url, init);
    await response.arrayBuffer();
    return { status: response.status, id: response.headers.get('x-request-id') };
  };

  it('answers a new UUID to a request without an id, on successes and errors alike', async () => {
    const first = await idOf(`${service.devnet}/api/v1/version`);
    const second = await idOf(`${service.devnet}/api/v1/version`);
    expect(first.id).to.match(UUID);
    expect(second.id).to.match(UUID).and.not.equal(first.id);
    const missing = await idOf(`${service.url}/nowhere`);
    expect(missing.status).to.equal(404);
    expect(missing.id).to.match(UUID);
    const refused = await idOf(`${service.devnet}/api/v1/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(refused.status).to.equal(400);
    expect(refused.id).to.match(UUID);
  });

  it("answers the client's own id when it is well formed", async () => {
    for (const id of [
      'c0ffee00-1234-4abc-8def-0123456789ab',
      '01HZX3V9Q8J5K2M4N6P7R8S9T0',
      'Root=1-67891233-abcdef012345678912345678',
      'trace:span/parent+x=y@svc~1.2_3',
      'x'.repeat(128),
    ]) {
      const answer = await idOf(`${service.devnet}/api/v1/version`, {
        headers: { 'x-request-id': id },
      });
      expect(answer.id, id).to.equal(id);
    }
  });

  it('replaces a malformed id and never echoes it', async () => {
    for (const id of ['x'.repeat(129), 'has space', 'quote"d', '<script>', 'caf\u00e9', '']) {
      const answer = await idOf(`${service.devnet}/api/v1/version`, {
        headers: { 'x-request-id': id },
      });
      expect(answer.id, JSON.stringify(id)).to.match(UUID);
    }
    // Control characters a client library would refuse to send, straight onto the socket.
    for (const id of ['abc\u0001def', 'abc\u007fdef', 'abc\tdef']) {
      const answer = await rawExchange(service.url, request(id));
      expect(answer, JSON.stringify(id)).not.to.include('abc');
      expect(rawRequestId(answer), JSON.stringify(id)).to.match(UUID);
    }
  });

  it("carries an id on the answers Node's server gives before Koa sees a request", async () => {
    // Headers over the 16 KiB limit: 431 from the server itself.
    const answer = await rawExchange(
      service.url,
      request().replace('\r\n\r\n', `\r\nX-Padding: ${'p'.repeat(20_000)}\r\n\r\n`),
    );
    expect(answer).to.match(/^HTTP\/1\.1 431 /);
    expect(rawRequestId(answer)).to.match(UUID);
    const malformed = await rawExchange(service.url, 'NOT HTTP AT ALL\r\n\r\n');
    expect(malformed).to.match(/^HTTP\/1\.1 400 /);
    expect(rawRequestId(malformed)).to.match(UUID);
  });

  it('puts the id on every line logged while a request is handled, each request its own', async () => {
    const ids = ['follow-me-a', 'follow-me-b', 'follow-me-c'];
    // The app-data projector waits on its batch lock: no write can find its document projected
    // before it asks, so each logs that it did not wait.
    const lock = await holdLock(service.databaseUrl, batchLockKey('read', 'app-data'));
    const answers = await Promise.all(
      ids.map((id) =>
        idOf(`${service.devnet}/api/v1/app_data`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json', 'x-request-id': id },
          body: JSON.stringify({ fullAppData: JSON.stringify({ appCode: id }) }),
        }),
      ),
    ).finally(() => lock.close());
    expect(answers.map((a) => a.status)).to.deep.equal([201, 201, 201]);
    expect(answers.map((a) => a.id)).to.deep.equal(ids);
    const linesOf = (id: string) => log.lines.filter((line) => line.requestId === id);
    await waitFor(() => ids.every((id) => linesOf(id).some((line) => line.msg === 'request')), {
      description: 'the access-log lines',
    });
    for (const id of ids) {
      const lines = linesOf(id);
      // Logged by the service's own logger, deep inside the handling.
      expect(lines.map((line) => line.msg)).to.include('read-your-writes wait timed out');
      const access = lines.filter((line) => line.msg === 'request');
      expect(access).to.have.length(1);
      expect(access[0]).to.include({
        level: 30,
        method: 'PUT',
        route: '/:network/api/v1/app_data',
        status: 201,
      });
      expect(access[0]!.durationMs).to.be.a('number').at.least(0);
    }
  });

  it('logs unmatched requests too, with no route', async () => {
    const { id } = await idOf(`${service.url}/nowhere/at/all`);
    await waitFor(() => log.lines.some((line) => line.requestId === id), {
      description: 'the access-log line',
    });
    const line = log.lines.find((l) => l.requestId === id)!;
    expect(line).to.include({ msg: 'request', method: 'GET', route: null, status: 404 });
  });

  describe('with ACCESS_LOG=false', () => {
    let quiet: TestService;
    const quietLog = capturingLogger();
    before(async () => {
      quiet = await startTestService({ logger: quietLog.logger, env: { ACCESS_LOG: 'false' } });
    });
    after(() => quiet.stop());

    it('still answers ids, but logs no access lines', async () => {
      const { status, id } = await idOf(`${quiet.devnet}/api/v1/version`);
      expect(status).to.equal(200);
      expect(id).to.match(UUID);
      const missing = await idOf(`${quiet.url}/nowhere`);
      expect(missing.status).to.equal(404);
      expect(quietLog.lines.filter((line) => line.msg === 'request')).to.deep.equal([]);
    });
  });
});
