/**
 * The composition root for `npm start`: read the config, start the service, stop it cleanly on
 * SIGINT/SIGTERM or once its launcher is gone. A bad configuration, or a start that cannot go
 * on, stops with one line saying why.
 */
import { describeDevnet } from './chain/devnet/devnet.js';
import { ConfigError, loadConfig } from './config.js';
import { watchLauncher } from './launcher-watch.js';
import { createLogger } from './logger.js';
import { startService, type RunningService } from './startup/start-service.js';
import { StartupError } from './startup-error.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);

  let service: RunningService | null = null;
  let stopReason: string | null = null;
  const shutdown = (reason: string) => {
    if (stopReason !== null) return;
    stopReason = reason;
    // Still starting: the stop follows once the start is done.
    if (service === null) return;
    logger.info({ reason }, 'stopping');
    service.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'unclean stop');
        process.exit(1);
      },
    );
  };
  // The orderly stop: HTTP, projectors, ledger, then PostgreSQL.
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  if (config.stopWithParent) watchLauncher(() => shutdown('the launching process is gone'));

  service = await startService(config, { logger });
  if (stopReason !== null) {
    const reason: string = stopReason;
    stopReason = null;
    shutdown(reason);
    return;
  }
  if (service.devnet) console.log(`\n${describeDevnet(service.devnet.deployment)}\n`);
  logger.info(
    { url: service.url, dataDir: config.dataDir, live: [...service.liveNetworks] },
    'batchbook is serving',
  );
}

main().catch((error: unknown) => {
  // A reason the operator can act on needs no stack; anything else is a defect worth its stack.
  const why = error instanceof StartupError ? error.message : describe(error);
  console.error(`batchbook failed to start: ${why}`);
  process.exit(1);
});

function describe(error: unknown): string {
  if (error instanceof Error) return error.stack ?? error.message;
  return String(error);
}
