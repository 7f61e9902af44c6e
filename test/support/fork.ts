/**
 * batchbook in fork mode for tests: the service forks `upstreamUrl` (a test chain playing a real
 * network) on a free port, in a data directory of its own, with no other node for that network.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './ports.js';
import { startTestService, type TestService } from './service.js';

export interface ForkService {
  service: TestService;
  /** The fork's JSON-RPC. */
  forkUrl: string;
  stop(): Promise<void>;
}

export async function startForkService(
  upstreamUrl: string,
  env: Record<string, string> = {},
): Promise<ForkService> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'batchbook-fork-'));
  const removeDataDir = () => rm(dataDir, { recursive: true, force: true });
  try {
    const port = await freePort();
    const service = await startTestService({
      env: {
        FORK_URL: upstreamUrl,
        DEVNET_PORT: String(port),
        DATA_DIR: dataDir,
        MAINNET_RPC_URL: '',
        ...env,
      },
    });
    return {
      service,
      forkUrl: `http://127.0.0.1:${port}`,
      async stop() {
        await service.stop();
        await removeDataDir();
      },
    };
  } catch (error) {
    await removeDataDir();
    throw error;
  }
}
