/**
 * Health probes (issue 21, item 1): `/healthz` answers while the process runs; `/ready` and
 * `/{network}/api/v1/ready` answer 503 naming each part that is not ready (the database stopped,
 * a projector held back, a network's node gone, its indexer behind) and 200 again by themselves
 * once it is back, without a key and without showing any configuration.
 */
import { expect } from 'chai';
import pg from 'pg';
import { sharedTestChain, type TestChain } from '../../support/chain.js';
import { documentedHttp } from '../../support/openapi.js';
import { startPrivatePostgres, type PrivatePostgres } from '../../support/private-postgres.js';
import { startRpcProxy, type RpcProxy } from '../../support/rpc-proxy.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import { waitFor } from '../../support/wait.js';

interface Report {
  ready: boolean;
  failing: { part: string; reason: string }[];
  checked: string[];
}

/** Each dependency's deadline: a frozen one costs a probe no more. */
const READY_TIMEOUT_MS = 1_000;
const PROJECTORS = ['orders', 'app-data', 'trades', 'auctions', 'notices'];

describe('health: liveness and readiness probes', function () {
  this.timeout(90_000);
  let postgres: PrivatePostgres | undefined;
  let devnet: TestChain;
  let proxy: RpcProxy | undefined;
  let service: TestService | undefined;

  before(async () => {
    postgres = await startPrivatePostgres();
    devnet = await sharedTestChain();
    proxy = await startRpcProxy(devnet.rpcUrl);
    service = await startTestService({
      databaseUrl: postgres.url,
      env: {
        DEVNET_RPC_URL: proxy.url,
        READY_TIMEOUT_MS: String(READY_TIMEOUT_MS),
        READY_PROJECTION_LAG_SECONDS: '1',
        READY_INDEXER_LAG_BLOCKS: '2',
        RPC_TIMEOUT_MS: '1000',
        ADMIN_API_KEY: 'operators-secret',
      },
      postgresDeadlines: { connectMs: 1_000, queryMs: 2_000 },
    });
  });

  after(async () => {
    await service?.stop();
    await proxy?.close();
    await postgres?.destroy();
  });

  /**
   * Runs `during` while a session of the test's own holds `table` locked against writes (reads
   * go on).
   */
  const withTableLocked = async (table: string, during: () => Promise<void>) => {
    const session = new pg.Client({ connectionString: postgres!.url });
    await session.connect();
    try {
      await session.query('BEGIN');
      await session.query(`LOCK TABLE ${table} IN EXCLUSIVE MODE`);
      await during();
    } finally {
      await session.end();
    }
  };
  const ready = (path = '/ready') => documentedHttp<Report>('GET', `${service!.url}${path}`);
  const failingParts = (report: Report) => report.failing.map((f) => f.part).sort();
  /** Waits until `path` answers `status`, and answers its body. */
  const until = async (status: number, path = '/ready', description = `${path} → ${status}`) => {
    let last: Report | undefined;
    await waitFor(
      async () => {
        const response = await ready(path);
        last = response.body;
        return response.status === status;
      },
      { timeoutMs: 20_000, intervalMs: 100, description },
    );
    return last!;
  };

  it('a service that serves: /healthz and every readiness probe answer 200, without a key', async () => {
    const health = await documentedHttp('GET', `${service!.url}/healthz`);
    expect(health.status).to.equal(200);
    expect(health.body).to.deep.equal({ status: 'ok' });

    const whole = await until(200);
    expect(whole).to.include({ ready: true });
    expect(whole.failing).to.deep.equal([]);
    expect(whole.checked).to.include.members([
      'database',
      'projection-thread',
      ...PROJECTORS.map((name) => `projector:${name}`),
      'rpc:devnet',
      'indexer:devnet',
      'rpc:mainnet',
      'indexer:mainnet',
    ]);

    const devnetOnly = await ready('/devnet/api/v1/ready');
    expect(devnetOnly.status).to.equal(200);
    expect(devnetOnly.body.checked).to.include('rpc:devnet').and.not.include('rpc:mainnet');
    // A network without an RPC serves its reads: the service's own parts decide.
    const notLive = await ready('/sepolia/api/v1/ready');
    expect(notLive.status).to.equal(200);
    expect(notLive.body.checked.filter((part) => /^(rpc|indexer):/.test(part))).to.deep.equal([]);
    expect((await ready('/atlantis/api/v1/ready')).status).to.equal(404);
  });

  it('PostgreSQL stops: 503 naming the database, and 200 again once it is back', async () => {
    await until(200);
    await postgres!.stop();
    try {
      const down = await until(503, '/ready', 'readiness to see the database gone');
      expect(failingParts(down)).to.include('database');
      expect(down.failing.find((f) => f.part === 'database')!.reason).to.match(/PostgreSQL/);
      // The answer names parts, never where they are.
      const text = JSON.stringify(down);
      expect(text).not.to.include(new URL(postgres!.url).port);
      expect(text).not.to.include(proxy!.url);
      // Liveness does not depend on the database.
      expect((await http('GET', `${service!.url}/healthz`)).status).to.equal(200);
    } finally {
      await postgres!.start();
    }
    await until(200, '/ready', 'readiness to come back with the database');
  });

  it('a projector held back: 503 naming it alone, and 200 once it has caught up', async () => {
    await until(200);
    // Its table locked against writes: the app-data projector's next batch waits.
    await withTableLocked('read.app_data', async () => {
      const registered = await http('PUT', `${service!.devnet}/api/v1/app_data`, {
        fullAppData: JSON.stringify({ appCode: 'readiness', nonce: String(Math.random()) }),
      });
      expect(registered.status).to.equal(201);
      const behind = await until(503, '/ready', 'readiness to see the app-data projector behind');
      expect(failingParts(behind)).to.deep.equal(['projector:app-data']);
      expect(behind.failing[0]!.reason).to.match(/^1 event behind, the oldest recorded \d+ s ago/);
      // Every network's probe counts the service's own parts.
      expect((await ready('/mainnet/api/v1/ready')).status).to.equal(503);
    });
    await until(200, '/ready', 'readiness once the projector caught up');
  });

  it("a network's node hangs: that network is not ready, the others are", async () => {
    await until(200);
    proxy!.cut('hang');
    try {
      const down = await until(503, '/devnet/api/v1/ready', "readiness to see devnet's node gone");
      expect(failingParts(down)).to.deep.equal(['indexer:devnet', 'rpc:devnet']);
      expect(down.failing.find((f) => f.part === 'rpc:devnet')!.reason).to.equal(
        `the node did not answer within ${READY_TIMEOUT_MS} ms`,
      );
      expect((await ready('/mainnet/api/v1/ready')).status).to.equal(200);
      expect(failingParts((await ready()).body)).to.deep.equal(['indexer:devnet', 'rpc:devnet']);
    } finally {
      proxy!.restore();
    }
    await until(200, '/devnet/api/v1/ready', "readiness once devnet's node is back");
  });

  it('an indexer behind the chain: 503 naming it with the blocks it lacks', async () => {
    await until(200);
    // The indexer's cursor locked against writes: it reads new blocks but cannot record them.
    await withTableLocked('chain.indexer_cursors', async () => {
      await devnet.mine(5);
      const behind = await until(
        503,
        '/devnet/api/v1/ready',
        'readiness to see the indexer behind',
      );
      expect(failingParts(behind)).to.deep.equal(['indexer:devnet']);
      expect(behind.failing[0]!.reason).to.match(/^\d+ confirmed blocks behind \(at most 2\)$/);
    });
    await until(200, '/devnet/api/v1/ready', 'readiness once the indexer caught up');
  });
});
