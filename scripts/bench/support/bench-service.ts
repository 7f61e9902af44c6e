/**
 * The service as the benches that drive it whole run it: on a throw-away embedded PostgreSQL,
 * with its own devnet.
 */
import type { Logger } from 'pino';
import { loadConfig, type Config } from '../../../src/config.js';
import { createLogger } from '../../../src/logger.js';
import { startService, type RunningService } from '../../../src/startup/start-service.js';
import { startScratchPostgres } from './harness.js';

export interface BenchService {
  service: RunningService;
  config: Config;
  databaseUrl: string;
  stop(): Promise<void>;
}

/**
 * A throw-away embedded PostgreSQL in a temp dir and the service on it with its own devnet
 * (DEVNET_PORT=0: never the one in ./data), configured by `env`.
 */
export async function startBenchService(
  env: Record<string, string>,
  logger: Logger = createLogger('silent'),
  { statements = false }: { statements?: boolean } = {},
): Promise<BenchService> {
  const scratch = await startScratchPostgres(undefined, { statements });
  try {
    const databaseUrl = scratch.url('bench');
    const config = loadConfig({
      DEVNET_PORT: '0',
      ...env,
      DATA_DIR: scratch.dir,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
    });
    const service = await startService(config, { logger });
    scratch.onStop(() => service.stop());
    if (!service.devnet)
      throw new Error('the bench needs the embedded devnet (DEVNET_RPC_URL unset)');
    return { service, config, databaseUrl, stop: scratch.stop };
  } catch (error) {
    await scratch.stop();
    throw error;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
