/** App data: PUT with and without the hash, re-registration, limits and errors (reference §5). */
import { expect } from 'chai';
import { keccak256, toUtf8Bytes } from 'ethers';
import { startTestService, type TestService } from '../../support/service.js';

describe('HTTP: app data', () => {
  let service: TestService;
  let base: string;
  before(async () => {
    service = await startTestService();
    base = `${service.devnet}/api/v1`;
  });
  after(() => service.stop());

  const put = (path: string, body: unknown) =>
    fetch(`${base}${path}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('registers a document under its hash: 201 first, 200 again, readable at once', async () => {
    const fullAppData = JSON.stringify({ appCode: 'batchbook-test', metadata: {} });
    const hash = keccak256(toUtf8Bytes(fullAppData));
    const first = await put(`/app_data/${hash}`, { fullAppData });
    expect(first.status).to.equal(201);
    expect(await first.json()).to.equal(hash);
    const again = await put(`/app_data/${hash}`, { fullAppData });
    expect(again.status).to.equal(200);
    expect(await again.json()).to.equal(hash);

    const read = await fetch(`${base}/app_data/${hash.slice(2).toUpperCase()}`);
    expect(read.status).to.equal(200);
    expect(await read.json()).to.deep.equal({ fullAppData });
  });

  it('computes the hash when none is given', async () => {
    const fullAppData = '{"appCode":"no-hash"}';
    const response = await put('/app_data', { fullAppData });
    expect(response.status).to.equal(201);
    expect(await response.json()).to.equal(keccak256(toUtf8Bytes(fullAppData)));
  });

  it('keeps each network’s documents apart', async () => {
    const fullAppData = '{"appCode":"devnet-only"}';
    const hash = keccak256(toUtf8Bytes(fullAppData));
    expect((await put(`/app_data/${hash}`, { fullAppData })).status).to.equal(201);
    const elsewhere = await fetch(`${service.url}/mainnet/api/v1/app_data/${hash}`);
    expect(elsewhere.status).to.equal(404);
  });

  it('rejects a hash that does not match the document', async () => {
    const response = await put(`/app_data/0x${'00'.repeat(31)}01`, { fullAppData: '{}' });
    expect(response.status).to.equal(400);
    expect(((await response.json()) as { errorType: string }).errorType).to.equal(
      'AppDataHashMismatch',
    );
  });

  it('rejects documents that are not JSON objects or carry malformed protocol keys', async () => {
    for (const fullAppData of ['not json', '[1]', '{"metadata":{"signer":"0x12"}}']) {
      const response = await put('/app_data', { fullAppData });
      expect(response.status, fullAppData).to.equal(400);
      expect(((await response.json()) as { errorType: string }).errorType).to.equal(
        'AppDataInvalid',
      );
    }
  });

  it('rejects a document that repeats a key, at any depth, and writes nothing', async () => {
    for (const fullAppData of [
      '{"appCode":"a","appCode":"b"}',
      '{"metadata":{"hooks":{"pre":[],"pre":[]}}}',
      // The same key, spelled with an escape.
      '{"appCode":"a","app\\u0043ode":"b"}',
    ]) {
      const response = await put('/app_data', { fullAppData });
      expect(response.status, fullAppData).to.equal(400);
      const body = (await response.json()) as { errorType: string; description: string };
      expect(body.errorType).to.equal('AppDataInvalid');
      expect(body.description).to.match(/duplicate key/);
    }
    const events = await service.ledger.readAll(null, 1000);
    const registered = events.map((e) => (e.data as { fullAppData?: string }).fullAppData);
    expect(registered.filter((doc) => doc?.includes('"appCode":"a"'))).to.deep.equal([]);
  });

  it('refuses bodies over 8 KiB with 413 and writes nothing', async () => {
    const fullAppData = JSON.stringify({ appCode: 'x'.repeat(8200) });
    const response = await put('/app_data', { fullAppData });
    expect(response.status).to.equal(413);
    const events = await service.ledger.readAll(null, 1000);
    expect(events.map((e) => (e.data as { fullAppData: string }).fullAppData)).not.to.include(
      fullAppData,
    );
  });

  it('answers 404 for an unknown hash and 400 for a malformed one', async () => {
    expect((await fetch(`${base}/app_data/0x${'ab'.repeat(32)}`)).status).to.equal(404);
    expect((await fetch(`${base}/app_data/0x1234`)).status).to.equal(400);
  });
});
