/**
 * Faults: a crash costs one restart. The real `npm start` (npm, the service, its embedded
 * PostgreSQL and devnet anvil in a data directory of its own) is killed with SIGKILL, at npm
 * (the launcher killed outright) or at the service (as the out-of-memory killer would), and a
 * plain `npm start` on the same DATA_DIR comes back with what was stored, with no manual step.
 * A data directory a running batchbook holds, and a port another program holds, are never taken:
 * the start says why it cannot go on.
 */
import { expect } from 'chai';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { keccak256, toUtf8Bytes } from 'ethers';
import { isRunning } from '../../../src/process-table.js';
import { npmStart, serving, type NpmStart } from '../../support/npm-start.js';
import {
  childrenOf,
  commandOf,
  gone,
  postmasterPid,
  signalProcess,
} from '../../support/processes.js';
import { withDeadline } from '../../support/wait.js';
import { freePort } from '../../support/ports.js';

/** A first start creates the cluster and deploys the devnet's contracts. */
const START_MS = 120_000;
const EXIT_MS = 60_000;

interface Tree {
  run: NpmStart;
  service: number;
  postgres: number;
  anvil: number;
}

describe('faults: a crash of npm start costs one restart', function () {
  this.timeout(300_000);
  let dir: string;
  let dataDir: string;
  let env: Record<string, string>;
  let base: string;
  let starts: NpmStart[];
  let pids: number[];

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'batchbook-crash-'));
    // Under root the embedded PostgreSQL runs as `postgres`, who must reach its cluster.
    await chmod(dir, 0o755);
    dataDir = path.join(dir, 'data');
    const port = await freePort();
    base = `http://127.0.0.1:${port}/devnet/api/v1`;
    env = {
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      DEVNET_PORT: String(await freePort()),
      DEVNET_AUCTION_INTERVAL_MS: '3600000',
      LOG_LEVEL: 'info',
    };
    starts = [];
    pids = [];
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') {
      for (const run of starts) console.log(run.log().slice(-4000));
    }
    // An orderly stop of each service first (it stops its servers), then nothing left running.
    for (const pid of pids) signalProcess(pid, 'SIGTERM');
    await gone(pids, EXIT_MS).catch(() => {
      for (const pid of pids) signalProcess(pid, 'SIGKILL');
    });
    await rm(dir, { recursive: true, force: true });
  });

  const start = (overrides: Record<string, string> = {}): NpmStart => {
    const run = npmStart({ ...env, ...overrides }, path.join(dir, `start-${starts.length}.log`));
    starts.push(run);
    return run;
  };

  /** The tree of a start that serves: its service, and the servers the service started. */
  const tree = async (run: NpmStart): Promise<Tree> => {
    await serving(`${base}/version`, START_MS);
    const [service] = await childrenOf(run.npm.pid!);
    expect(await commandOf(service!)).to.match(/src\/main\.ts/);
    const postgres = await postmasterPid(path.join(dataDir, 'postgres'));
    const children = await childrenOf(service!);
    const commands = await Promise.all(children.map(commandOf));
    const anvil = children[commands.findIndex((command) => /\banvil\b/.test(command))];
    expect(children, 'the service started PostgreSQL').to.include(postgres);
    expect(anvil, 'the service started anvil').to.be.a('number');
    pids.push(service!, postgres, anvil!);
    return { run, service: service!, postgres, anvil: anvil! };
  };

  /** Stores an app-data document: what the next start must still serve. */
  const storeSomething = async (): Promise<string> => {
    const fullAppData = JSON.stringify({ appCode: 'crash-restart', at: dir });
    const response = await fetch(`${base}/app_data`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fullAppData }),
    });
    expect(response.status).to.equal(201);
    return keccak256(toUtf8Bytes(fullAppData));
  };

  const expectStored = async (hash: string) => {
    const response = await fetch(`${base}/app_data/${hash}`);
    expect(response.status).to.equal(200);
  };

  it('stops the whole tree when npm is killed, and a restart at once comes back', async () => {
    const first = await tree(start());
    const hash = await storeSomething();

    first.run.npm.kill('SIGKILL');
    // The plain restart, at once: it waits for the service that is stopping.
    const second = start();
    await gone([first.service, first.postgres, first.anvil], EXIT_MS);
    await tree(second);
    await expectStored(hash);
  });

  it('stops the servers a killed service left running, and comes back', async () => {
    const first = await tree(start());
    const hash = await storeSomething();

    process.kill(first.service, 'SIGKILL');
    expect(
      await withDeadline(first.run.exited, EXIT_MS, 'npm after its service died'),
    ).to.not.equal(0);
    // What an out-of-memory kill leaves: the servers, running with no parent.
    expect(await isRunning(first.postgres), 'PostgreSQL outlived the service').to.equal(true);
    expect(await isRunning(first.anvil), 'anvil outlived the service').to.equal(true);

    const second = await tree(start());
    expect(await isRunning(first.postgres)).to.equal(false);
    expect(await isRunning(first.anvil)).to.equal(false);
    expect(second.postgres).to.not.equal(first.postgres);
    await expectStored(hash);
  });

  it('refuses a data directory a running batchbook holds, and leaves that one alone', async () => {
    const first = await tree(start());
    const other = start({ PORT: String(await freePort()), DEVNET_PORT: String(await freePort()) });

    expect(await withDeadline(other.exited, EXIT_MS, 'the second start')).to.equal(1);
    expect(other.log()).to.include(
      `batchbook failed to start: DATA_DIR ${dataDir} is in use by a running batchbook (pid ${first.service})`,
    );
    for (const pid of [first.service, first.postgres, first.anvil]) {
      expect(await isRunning(pid)).to.equal(true);
    }
    await serving(`${base}/version`, 5_000);
  });

  it('says which port another program holds, leaves that program alone, and starts once it is free', async () => {
    const squatter: Server = createServer();
    await new Promise<void>((resolve) =>
      squatter.listen(Number(env.DEVNET_PORT), '127.0.0.1', resolve),
    );
    try {
      const refused = start();
      expect(await withDeadline(refused.exited, START_MS, 'the start')).to.equal(1);
      expect(refused.log()).to.include(
        `batchbook failed to start: DEVNET_PORT ${env.DEVNET_PORT} is in use by another program`,
      );
      expect(squatter.listening).to.equal(true);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
    await tree(start());
  });
});
