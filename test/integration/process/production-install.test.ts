/**
 * A production install serves: the repository's files (what a commit of this working tree
 * holds) copied to a folder of their own, `npm ci --omit=dev` there (from the npm cache, as CI
 * has just filled it), then `npm start` with nothing but `DATABASE_URL` (a real PostgreSQL), a
 * network's RPC URL (a local anvil with mainnet's chain id) and where to listen. Whatever the
 * service imports at run time must then be among the dependencies, or it does not start; so
 * must what builds the web app, which `npm start` builds first (the build is not in the files).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { sharedTestChain } from '../../support/chain.js';
import { copyRepository } from '../../support/checkout.js';
import { npmStart, serving, type NpmStart } from '../../support/npm-start.js';
import { freePort } from '../../support/ports.js';
import { freshDatabase } from '../../support/postgres.js';
import { withDeadline } from '../../support/wait.js';

const run = promisify(execFile);
const INSTALL_MS = 300_000;
const START_MS = 90_000;

describe('a production install', function () {
  this.timeout(INSTALL_MS + START_MS + 60_000);
  let folder: string;
  let started: NpmStart | null = null;

  before(async () => {
    folder = mkdtempSync(path.join(tmpdir(), 'batchbook-production-'));
    await copyRepository(folder);
    await run('npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: folder,
      timeout: INSTALL_MS,
      maxBuffer: 64 * 1024 * 1024,
    });
  });

  after(async function () {
    if (started) {
      if (this.currentTest?.state === 'failed') console.log(started.log().slice(-4000));
      started.npm.kill('SIGTERM');
      await withDeadline(started.exited, 30_000, 'the production start to stop');
    }
    rmSync(folder, { recursive: true, force: true });
  });

  it('installs no development dependency', () => {
    // Not typescript: viem, which the web app's build bundles, names it as an optional peer, and
    // npm installs an optional peer the lock holds with the production dependencies.
    for (const dev of ['mocha', 'eslint', 'chai', 'playwright-core', 'axe-core']) {
      expect(existsSync(path.join(folder, 'node_modules', dev)), dev).to.equal(false);
    }
  });

  it('serves with DATABASE_URL and a network RPC URL, its API document and reference page too', async () => {
    const port = await freePort();
    const chain = await sharedTestChain(1);
    started = npmStart(
      {
        DATABASE_URL: await freshDatabase(),
        MAINNET_RPC_URL: chain.rpcUrl,
        DEVNET: 'false',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: path.join(folder, 'data'),
      },
      path.join(folder, 'start.log'),
      folder,
    );
    const base = `http://127.0.0.1:${port}`;
    await serving(`${base}/mainnet/api/v1/version`, START_MS);
    const orders = await fetch(`${base}/mainnet/api/v1/account/${'0'.repeat(40)}/orders`);
    expect(orders.status).to.equal(200);
    expect(await orders.json()).to.deep.equal([]);
    // Not live: no RPC URL for it.
    const quote = await fetch(`${base}/xdai/api/v1/quote`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(quote.status).to.equal(503);
    for (const file of ['/openapi.json', '/docs', '/docs/swagger-ui-bundle.js']) {
      expect((await fetch(`${base}${file}`)).status, file).to.equal(200);
    }
    // The web app, built by npm start from the dependencies alone, and its script.
    const page = await fetch(`${base}/`);
    expect(page.status).to.equal(200);
    const script = /src="(\/assets\/index-[^"]+\.js)"/.exec(await page.text())?.[1];
    expect(script, 'the page names its script').to.be.a('string');
    expect((await fetch(`${base}${script}`)).status).to.equal(200);
  });
});
