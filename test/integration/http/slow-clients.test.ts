/**
 * Slow clients hold no connection past the request deadline, and one client holds a bounded
 * number of connections. Real sockets that trickle a request a byte at a time; the deadlines are
 * set small through the configuration, and the tests wait on the sockets' own events.
 */
import net from 'node:net';
import { expect } from 'chai';
import { capturingLogger } from '../delivery/fixtures.js';
import { startTestService, type TestService } from '../../support/service.js';
import { waitFor, withDeadline } from '../../support/wait.js';

/** A raw connection to the service: what it has answered so far, and whether it has closed. */
interface Raw {
  socket: net.Socket;
  answer(): string;
  closed: Promise<void>;
}

/** Every connection a test opened, closed after it (a failed test leaves none open). */
const opened: net.Socket[] = [];

function connect(url: string, localAddress = '127.0.0.1'): Promise<Raw> {
  const { hostname, port } = new URL(url);
  const socket = net.connect({ host: hostname, port: Number(port), localAddress });
  opened.push(socket);
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
  // A reset after the server's answer is still an answer, and an end.
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve({ socket, answer: () => answer, closed }));
    socket.once('error', reject);
  });
}

/** Writes `text` one byte per `everyMs` until the connection closes or the text runs out. */
function trickle(raw: Raw, text: string, everyMs: number): void {
  let at = 0;
  const timer = setInterval(() => {
    if (at >= text.length || raw.socket.destroyed) return clearInterval(timer);
    raw.socket.write(text[at++]!);
  }, everyMs);
  void raw.closed.then(() => clearInterval(timer));
}

/** The status line and the JSON body of a raw answer. */
function parseAnswer(text: string): { status: number; body: Record<string, unknown> } {
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1]);
  const body = text.slice(text.indexOf('\r\n\r\n') + 4);
  return { status, body: JSON.parse(body) as Record<string, unknown> };
}

const VERSION = 'GET /devnet/api/v1/version HTTP/1.1\r\nHost: batchbook\r\n\r\n';

describe('HTTP: slow clients', function () {
  this.timeout(30_000);
  afterEach(() => {
    for (const socket of opened.splice(0)) socket.destroy();
  });

  describe('a request that does not arrive within its deadline', () => {
    let service: TestService;
    const log = capturingLogger();
    before(async () => {
      service = await startTestService({ env: { REQUEST_TIMEOUT_MS: '300' }, logger: log.logger });
    });
    after(() => service.stop());
    // A client's slowness is no failure of the server's.
    afterEach(() => {
      expect(log.lines.filter((line) => (line.level as number) >= 50)).to.deep.equal([]);
    });

    const cases: [string, string][] = [
      [
        'a body that trickles',
        'POST /devnet/api/v1/orders HTTP/1.1\r\nHost: batchbook\r\n' +
          'Content-Type: application/json\r\nContent-Length: 16000\r\n\r\n{',
      ],
      ['headers that trickle', 'GET /devnet/api/v1/version HTTP/1.1\r\nHost: b'],
    ];
    for (const [what, start] of cases) {
      it(`answers ${what} with 408 and closes the connection`, async () => {
        const raw = await connect(service.url);
        raw.socket.write(start);
        trickle(raw, 'x'.repeat(16_000), 20);
        // The default deadline would hold it for minutes; this one for well under a second.
        await withDeadline(raw.closed, 10_000, 'the connection to close');
        const { status, body } = parseAnswer(raw.answer());
        expect(status, raw.answer()).to.equal(408);
        expect(body).to.deep.equal({
          errorType: 'RequestTimeout',
          description: 'the request did not arrive within the deadline',
        });
      });
    }

    it('serves a request sent whole, and the next one on the same connection', async () => {
      const raw = await connect(service.url);
      raw.socket.write(VERSION);
      await waitFor(() => raw.answer().includes('batchbook-'), { description: 'the first answer' });
      raw.socket.write(VERSION);
      await waitFor(() => raw.answer().split('HTTP/1.1 200').length === 3, {
        description: 'the second answer',
      });
      raw.socket.destroy();
    });
  });

  describe('the connections of one client', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService({ env: { MAX_CONNECTIONS_PER_CLIENT: '2' } });
    });
    after(() => service.stop());

    /** Whether a new connection from `localAddress` gets the version. */
    const served = async (localAddress = '127.0.0.1') => {
      const raw = await connect(service.url, localAddress);
      raw.socket.write(VERSION);
      await withDeadline(
        waitFor(
          () => /\r\n\r\n"?batchbook-|^HTTP\/1\.1 429 /.test(raw.answer()) || raw.socket.closed,
        ),
        10_000,
        'an answer',
      );
      raw.socket.destroy();
      return raw.answer().startsWith('HTTP/1.1 200 ');
    };

    it('refuses a client a connection past the bound with 429, serving its others and other clients', async () => {
      const [a, b] = [await connect(service.url), await connect(service.url)];
      const refused = await connect(service.url);
      refused.socket.write(VERSION);
      await withDeadline(refused.closed, 10_000, 'the refused connection to close');
      const { status, body } = parseAnswer(refused.answer());
      expect(status, refused.answer()).to.equal(429);
      expect(body.errorType).to.equal('TooManyConnections');
      expect(refused.answer(), 'the request was served').not.to.contain('batchbook-');

      // The two it holds still serve; another client (another loopback address) is served.
      a.socket.write(VERSION);
      await waitFor(() => a.answer().startsWith('HTTP/1.1 200 '), { description: 'a answered' });
      expect(await served('127.0.0.2')).to.equal(true);

      // Once one of its connections closes, the client may open another.
      b.socket.destroy();
      await waitFor(() => served(), { description: 'a new connection served' });
      a.socket.destroy();
    });
  });
});
