/**
 * The embedded PostgreSQL says why it did not start: the server's own FATAL and HINT lines, not
 * the nothing the npm package rejects with.
 */
import { expect } from 'chai';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  startEmbeddedPostgres,
  type EmbeddedPostgresHandle,
} from '../../../src/postgres/embedded.js';
import { StartupError } from '../../../src/startup-error.js';

describe('the embedded PostgreSQL', function () {
  this.timeout(120_000);
  let dir: string;
  let running: EmbeddedPostgresHandle | undefined;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'batchbook-embedded-'));
    // Under root the server runs as `postgres`, who must reach its cluster.
    await chmod(dir, 0o755);
  });

  after(async () => {
    await running?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('says why it cannot start on a cluster another server runs', async () => {
    const cluster = path.join(dir, 'cluster');
    running = await startEmbeddedPostgres({ dataDir: cluster, port: 0 });

    const refusal = await startEmbeddedPostgres({ dataDir: cluster, port: 0 }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refusal).to.be.instanceOf(StartupError);
    expect((refusal as Error).message)
      .to.include(`PostgreSQL did not start in ${cluster}: FATAL:`)
      .and.to.include('postmaster.pid');
  });
});
