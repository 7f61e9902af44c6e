/**
 * The web app's files as the server hands them out (src/http/routes/web-app.ts): the page and
 * its assets from a build directory, in the encoding the client accepts, with their caching;
 * before a build, a 503 that says how to make one, and the build found once it is there.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { expect } from 'chai';
import Koa from 'koa';
import { errorMiddleware } from '../../../src/http/errors.js';
import { webAppRouter } from '../../../src/http/routes/web-app.js';
import { webFiles } from '../../../src/http/web-files.js';
import { createLogger } from '../../../src/logger.js';

describe('web app files: encodings, caching, and the build not there yet', () => {
  let dir: string;
  let base: string;
  let close: () => void;

  before(async () => {
    dir = path.join(await mkdtemp(path.join(tmpdir(), 'web-app-')), 'web');
    const app = new Koa();
    app.use(errorMiddleware(createLogger('silent')));
    app.use(webAppRouter(webFiles(dir)).routes());
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  after(async () => {
    close();
    await rm(path.dirname(dir), { recursive: true, force: true });
  });

  // Node's fetch decodes what it is sent; the headers tell what was sent.
  const get = (url: string, encoding: string) =>
    fetch(`${base}${url}`, { headers: { 'Accept-Encoding': encoding } });

  it('answers 503 WebAppNotBuilt before a build, then serves the build once it is there', async () => {
    const before = await get('/', 'gzip');
    expect(before.status).to.equal(503);
    expect(await before.json()).to.have.property('errorType', 'WebAppNotBuilt');

    const script = 'console.log("batchbook");'.repeat(20);
    await mkdir(path.join(dir, 'assets'), { recursive: true });
    await writeFile(path.join(dir, 'index.html'), '<!doctype html><title>batchbook</title>');
    await writeFile(path.join(dir, 'assets/index-abc.js'), script);
    await writeFile(path.join(dir, 'assets/index-abc.js.br'), brotliCompressSync(script));
    await writeFile(path.join(dir, 'assets/index-abc.js.gz'), gzipSync(script));

    const page = await get('/', 'gzip, br');
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    expect(page.headers.get('cache-control')).to.equal('no-cache');
    expect(await page.text()).to.contain('<title>batchbook</title>');

    const br = await get('/assets/index-abc.js', 'gzip, br');
    expect(br.headers.get('content-encoding')).to.equal('br');
    expect(br.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect(br.headers.get('vary')).to.match(/Accept-Encoding/i);
    expect(await br.text()).to.equal(script);
    const gzip = await get('/assets/index-abc.js', 'gzip');
    expect(gzip.headers.get('content-encoding')).to.equal('gzip');
    expect(await gzip.text()).to.equal(script);
    const plain = await get('/assets/index-abc.js', 'identity');
    expect(plain.headers.get('content-encoding')).to.equal(null);
    expect(plain.headers.get('content-length')).to.equal(String(script.length));

    const missing = await get('/assets/nothing.js', 'gzip');
    expect(missing.status).to.equal(404);
    expect(await missing.json()).to.have.property('errorType', 'NotFound');
  });
});
