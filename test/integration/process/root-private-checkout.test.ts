/**
 * A newcomer running as root starts it (issue 21, item 5): a checkout in a folder of mode 700,
 * which the `postgres` account the embedded server runs as cannot enter, and `npm start` with
 * nothing set serves, and serves again after a stop. The server's programs then run from a copy
 * in /var/lib/batchbook and its cluster lives there, linked from the data directory.
 */
import { execFile } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readlink, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { REACHABLE_PLACE } from '../../../src/postgres/postgres-account.js';
import { copyRepository, REPO_ROOT } from '../../support/checkout.js';
import { npmStart, serving, type NpmStart } from '../../support/npm-start.js';
import { freePort } from '../../support/ports.js';
import { withDeadline } from '../../support/wait.js';

const run = promisify(execFile);
/** A first start copies the server's programs, creates the cluster and deploys the devnet. */
const START_MS = 180_000;
const STOP_MS = 60_000;

describe('npm start as root in a checkout no other user can enter', function () {
  this.timeout(2 * START_MS + 2 * STOP_MS + 60_000);
  let folder: string;
  let checkout: string;
  let env: Record<string, string>;
  let base: string;
  const starts: NpmStart[] = [];

  before(async function () {
    if (process.getuid?.() !== 0) this.skip();
    // Beside the repository (same file system: node_modules is linked, not copied), mode 700.
    await mkdir(path.join(REPO_ROOT, '.test-data'), { recursive: true });
    folder = await mkdtemp(path.join(REPO_ROOT, '.test-data', 'root-private-'));
    expect((await stat(folder)).mode & 0o777).to.equal(0o700);
    checkout = path.join(folder, 'batchbook');
    await copyRepository(checkout);
    await run('cp', ['-al', path.join(REPO_ROOT, 'node_modules'), checkout]).catch(() =>
      run('cp', ['-a', path.join(REPO_ROOT, 'node_modules'), checkout]),
    );
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = { PORT: String(port), DEVNET_PORT: String(await freePort()) };
  });

  after(async function () {
    if (!folder) return;
    if (this.currentTest?.state === 'failed') {
      for (const start of starts) console.log(start.log().slice(-4000));
    }
    for (const start of starts) start.npm.kill('SIGTERM');
    await Promise.all(starts.map((start) => withDeadline(start.exited, STOP_MS, 'npm to stop')));
    const cluster = await readlink(path.join(checkout, 'data', 'postgres')).catch(() => null);
    if (cluster?.startsWith(REACHABLE_PLACE)) await rm(cluster, { recursive: true, force: true });
    await rm(folder, { recursive: true, force: true });
  });

  const startAndServe = async () => {
    const start = npmStart(env, path.join(folder, `start-${starts.length}.log`), checkout);
    starts.push(start);
    await serving(`${base}/ready`, START_MS);
    return start;
  };

  it('serves, its cluster and its programs where the postgres account reaches them', async () => {
    await startAndServe();
    const link = path.join(checkout, 'data', 'postgres');
    expect((await lstat(link)).isSymbolicLink()).to.equal(true);
    const cluster = await readlink(link);
    expect(cluster.startsWith(path.join(REACHABLE_PLACE, 'clusters'))).to.equal(true);
    const { stdout } = await run('ps', ['-o', 'user=,args=', '-C', 'postgres']);
    const server = stdout.split('\n').find((line) => line.includes(`-D ${cluster}`));
    expect(server, stdout).to.match(new RegExp(`^postgres\\s+${REACHABLE_PLACE}/postgresql-`));
    const version = await fetch(`${base}/devnet/api/v1/version`);
    expect(version.status).to.equal(200);
  });

  it('stops, and serves again from the same cluster', async () => {
    const first = starts.at(-1)!;
    first.npm.kill('SIGTERM');
    expect(await withDeadline(first.exited, STOP_MS, 'npm to stop')).to.equal(0);
    starts.pop();
    await startAndServe();
    const orders = await fetch(`${base}/devnet/api/v1/account/${'0'.repeat(40)}/orders`);
    expect(orders.status).to.equal(200);
  });
});
