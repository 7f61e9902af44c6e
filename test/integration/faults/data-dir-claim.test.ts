/**
 * The data directory's claim: a claim whose process is gone, or whose pid now names another
 * process, is taken over; a live holder is waited for while it stops and refused while it
 * serves; a claim is only ever given up by the process that holds it.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { claimDataDir, claimFile } from '../../../src/data-dir-claim.js';
import { processStart } from '../../../src/process-table.js';
import { StartupError } from '../../../src/startup-error.js';

describe('the data directory claim', () => {
  let dir: string;
  let holder: ChildProcess | null;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'batchbook-claim-'));
    holder = null;
  });

  afterEach(async () => {
    holder?.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  /** A live process other than this one, to name in a claim. */
  const liveProcess = async (): Promise<{ pid: number; start: string | null }> => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      stdio: 'ignore',
    });
    holder = child;
    await new Promise((resolve) => child.once('spawn', resolve));
    return { pid: child.pid!, start: await processStart(child.pid!) };
  };

  const writeClaim = (claim: object) => writeFile(claimFile(dir), JSON.stringify(claim));
  const claimant = async () =>
    (JSON.parse(await readFile(claimFile(dir), 'utf8')) as { pid: number }).pid;

  it('takes over a claim whose process is gone', async () => {
    const exited = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => exited.once('exit', resolve));
    await writeClaim({ pid: exited.pid, start: null, state: 'running' });

    await claimDataDir(dir, { stoppingDeadlineMs: 0, servingGraceMs: 0 });
    expect(await claimant()).to.equal(process.pid);
  });

  it('takes over a claim whose pid now names another process', async () => {
    const live = await liveProcess();
    await writeClaim({ pid: live.pid, start: `${live.start}-before`, state: 'running' });

    await claimDataDir(dir, { stoppingDeadlineMs: 0, servingGraceMs: 0 });
    expect(await claimant()).to.equal(process.pid);
  });

  it('refuses a directory held by a process that serves, naming it', async () => {
    const live = await liveProcess();
    await writeClaim({ ...live, state: 'running' });

    const refusal = await claimDataDir(dir, { stoppingDeadlineMs: 60_000, servingGraceMs: 0 }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refusal).to.be.instanceOf(StartupError);
    expect((refusal as Error).message).to.include(
      `in use by a running batchbook (pid ${live.pid})`,
    );
    expect(await claimant()).to.equal(live.pid);
  });

  it('waits for a holder that is stopping, and takes the directory once it is gone', async () => {
    const live = await liveProcess();
    await writeClaim({ ...live, state: 'stopping' });
    let exitedAt = Infinity;
    holder!.once('exit', () => (exitedAt = Date.now()));

    const claimed = claimDataDir(dir, { stoppingDeadlineMs: 60_000, servingGraceMs: 0 });
    holder!.kill('SIGTERM');
    await claimed;
    expect(Date.now()).to.be.at.least(exitedAt);
    expect(await claimant()).to.equal(process.pid);
  });

  it('gives up on a holder that takes too long to stop', async () => {
    const live = await liveProcess();
    await writeClaim({ ...live, state: 'stopping' });

    const refusal = await claimDataDir(dir, { stoppingDeadlineMs: 200, servingGraceMs: 0 }).then(
      () => null,
      (error: unknown) => error,
    );
    expect((refusal as Error).message).to.include(
      `batchbook (pid ${live.pid}), which has been stopping`,
    );
  });

  it('marks itself stopping, and is released only by its holder', async () => {
    const claim = await claimDataDir(dir);
    await claim.markStopping();
    expect(JSON.parse(await readFile(claimFile(dir), 'utf8'))).to.include({
      pid: process.pid,
      state: 'stopping',
    });
    await claim.release();
    expect(
      await readFile(claimFile(dir)).then(
        () => 'there',
        () => 'gone',
      ),
    ).to.equal('gone');

    const again = await claimDataDir(dir);
    const live = await liveProcess();
    await writeClaim({ ...live, state: 'running' });
    await again.release();
    expect(await claimant()).to.equal(live.pid);
  });
});
