/**
 * Bad input gets a clear error and writes nothing: unknown networks, malformed JSON, oversized
 * bodies, wrong shapes, malformed path parameters, pagination limits.
 */
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { capturingLogger } from '../delivery/fixtures.js';
import { startTestService, type TestService } from '../../support/service.js';

describe('HTTP: bad input', () => {
  let service: TestService;
  let base: string;
  const log = capturingLogger();
  before(async () => {
    service = await startTestService({ logger: log.logger });
    base = `${service.devnet}/api/v1`;
  });
  after(() => service.stop());

  /** What the service logged at error level or above: a client's mistake is never one. */
  const errorsLogged = () => log.lines.filter((line) => (line.level as number) >= 50);

  const post = (path: string, body: string, contentType = 'application/json') =>
    fetch(`${base}${path}`, { method: 'POST', body, headers: { 'content-type': contentType } });

  async function expectError(response: Response, status: number, errorType: string) {
    expect(response.status).to.equal(status);
    const body = (await response.json()) as { errorType: string; description: string };
    expect(body.errorType).to.equal(errorType);
    expect(body.description).to.be.a('string');
    return body;
  }

  /** Nothing but the deployment's identity, recorded at the start. */
  async function ledgerIsEmpty() {
    const events = await service.ledger.readAll(null, 10);
    expect(events.map((e) => e.type)).to.deep.equal(['DeploymentIdentified']);
  }

  it('answers an unknown network with a JSON 404', async () => {
    const response = await fetch(`${service.url}/moonnet/api/v1/version`);
    const body = await expectError(response, 404, 'NotFound');
    expect(body.description).to.contain('moonnet');
  });

  it('answers an unknown path with a JSON 404', async () => {
    await expectError(await fetch(`${base}/no_such_thing`), 404, 'NotFound');
  });

  it('rejects malformed JSON with 400', async () => {
    await expectError(await post('/orders', '{"sellToken": '), 400, 'InvalidJson');
    await ledgerIsEmpty();
  });

  it('rejects a body over 16 KiB with 413', async () => {
    const big = JSON.stringify({ appData: 'x'.repeat(17 * 1024) });
    await expectError(await post('/orders', big), 413, 'PayloadTooLarge');
    await ledgerIsEmpty();
  });

  it('rejects a body that is not JSON with 415', async () => {
    await expectError(
      await post('/orders', 'sellToken=1', 'text/plain'),
      415,
      'UnsupportedMediaType',
    );
  });

  it('names the missing or malformed field of a wrong shape', async () => {
    const missing = await expectError(await post('/orders', '{}'), 400, 'InvalidParameter');
    expect(missing.description).to.contain('/sellToken');
    const wrongType = await expectError(
      await post('/orders', JSON.stringify([1, 2])),
      400,
      'InvalidParameter',
    );
    expect(wrongType.description).to.contain('object');
    await ledgerIsEmpty();
  });

  it('rejects a malformed order UID in a path with 400 and accepts one without 0x', async () => {
    await expectError(await fetch(`${base}/orders/0x1234`), 400, 'InvalidParameter');
    const bare = 'AB'.repeat(56);
    await expectError(await fetch(`${base}/orders/${bare}`), 404, 'NotFound');
  });

  it('accepts mixed-case owners without 0x and bounds the page size', async () => {
    const owner = 'AbCdEf0123456789aBcDeF0123456789AbCdEf01';
    const ok = await fetch(`${base}/account/${owner}/orders`);
    expect(ok.status).to.equal(200);
    expect(await ok.json()).to.deep.equal([]);
    for (const limit of ['0', '1001']) {
      const response = await fetch(`${base}/account/0x${owner}/orders?limit=${limit}`);
      await expectError(response, 400, 'LIMIT_OUT_OF_BOUNDS');
    }
    await expectError(await fetch(`${base}/account/0x12/orders`), 400, 'InvalidParameter');
    await expectError(
      await fetch(`${base}/account/0x${owner}/orders?offset=-1`),
      400,
      'InvalidParameter',
    );
  });

  it('limits by_uids to 128 UIDs and omits unknown ones', async () => {
    const uid = `0x${'11'.repeat(56)}`;
    const tooMany = JSON.stringify(Array.from({ length: 129 }, () => uid));
    await expectError(await post('/orders/by_uids', tooMany), 400, 'InvalidParameter');
    const unknown = await post('/orders/by_uids', JSON.stringify([uid]));
    expect(unknown.status).to.equal(200);
    expect(await unknown.json()).to.deep.equal([]);
  });

  it('rejects cancellations without a proper signature shape and writes nothing', async () => {
    const response = await fetch(`${base}/orders`, {
      method: 'DELETE',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        orderUids: [`0x${'11'.repeat(56)}`],
        signature: '0x12',
        signingScheme: 'eip712',
      }),
    });
    const body = await expectError(response, 400, 'InvalidParameter');
    expect(body.description).to.contain('/signature');
    await ledgerIsEmpty();
  });

  it('answers a wrong method with 405', async () => {
    const response = await fetch(`${base}/version`, { method: 'POST' });
    expect(response.status).to.equal(405);
  });

  // Each router outside `/{network}` runs only for its own paths (src/http/app.ts): its wrong
  // methods must still meet the 405 of the order book's router, in any case of the path.
  it('answers a wrong method with 405 outside /{network} too, the token endpoints in their shape', async () => {
    const account = `0x${'11'.repeat(20)}`;
    for (const path of [
      `/accounts/${account}/notifications`,
      `/accounts/${account}/subscriptions`,
      '/metrics',
      '/METRICS',
    ]) {
      const response = await fetch(`${service.url}${path}`, { method: 'PUT' });
      await expectError(response, 405, 'MethodNotAllowed');
    }
    for (const path of ['/1/tokens/-/usdPrice', '/1/TOKENS/-/topHolders']) {
      const response = await fetch(`${service.url}${path}`, { method: 'POST' });
      expect(response.status).to.equal(405);
      expect(await response.json()).to.deep.equal({ message: 'method not allowed on this path' });
    }
  });

  it('answers a method it does not implement with 501, on any path, logging no error', async () => {
    for (const path of [`${base}/version`, `${service.url}/no/such/thing`]) {
      await expectError(await fetch(path, { method: 'PROPFIND' }), 501, 'NotImplemented');
    }
    expect(errorsLogged()).to.deep.equal([]);
  });

  it('answers an unsupported Content-Encoding with 415 and a corrupt body with 400, logging no error', async () => {
    const body = JSON.stringify({ fullAppData: '{"appCode":"encoded"}' });
    const put = (encoding: string, payload: string | Buffer = body) =>
      fetch(`${base}/app_data`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body: payload,
      });
    for (const encoding of ['xyz', 'compress', 'gzip, br', 'gzip;q=1']) {
      await expectError(await put(encoding), 415, 'UnsupportedMediaType');
    }
    // Encodings it decodes, on a body that is not encoded so (or cut short).
    for (const [encoding, payload] of [
      ['br', body],
      ['gzip', body],
      ['deflate', body],
      ['gzip', gzipSync(body).subarray(0, 12)],
    ] as const) {
      await expectError(await put(encoding, payload), 400, 'InvalidBody');
    }
    await ledgerIsEmpty();
    expect(errorsLogged()).to.deep.equal([]);
    // A body that is what it says is read, whatever the coding's case (a read: nothing written).
    const uids = JSON.stringify([`0x${'11'.repeat(56)}`]);
    for (const encoding of ['gzip', 'GZip', 'identity']) {
      const response = await fetch(`${base}/orders/by_uids`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body: encoding === 'identity' ? uids : gzipSync(uids),
      });
      expect(response.status, encoding).to.equal(200);
      expect(await response.json()).to.deep.equal([]);
    }
  });

  it('answers CORS preflights for any origin', async () => {
    const response = await fetch(`${base}/orders`, {
      method: 'OPTIONS',
      headers: { origin: 'https://example.org', 'access-control-request-method': 'POST' },
    });
    expect(response.status).to.equal(204);
    expect(response.headers.get('access-control-allow-origin')).to.equal('*');
    expect(response.headers.get('access-control-allow-methods')).to.contain('DELETE');
  });
});
