/**
 * The second step: the chains. The embedded devnet (or a fork of a real network) when asked for,
 * then every live network's JSON-RPC client, order checks, prices and chain indexer.
 */
import type { Config } from '../config.js';
import { AnvilPortInUse } from '../chain/devnet/anvil.js';
import { devnetFiles, startDevnet, type Devnet } from '../chain/devnet/devnet.js';
import { ForkUnavailable, startFork, type Fork } from '../chain/devnet/fork.js';
import { startLiveNetworks, type LiveNetworks } from '../chain/live-networks.js';
import type { RpcObserver } from '../chain/rpc.js';
import { inTransaction } from '../postgres/transaction.js';
import { StartupError } from '../startup-error.js';
import type { Infrastructure } from './infrastructure.js';
import type { Lifetime } from './lifetime.js';

export interface Chains {
  /** The embedded devnet, when this service launched one. */
  devnet: Devnet | null;
  live: LiveNetworks;
  /** Each live network's node. */
  rpcUrls: ReadonlyMap<string, string>;
  /** Whether a network runs on a local anvil: blocks come only with transactions, never reorg. */
  local(network: string): boolean;
}

export async function startChains(
  config: Config,
  infra: Infrastructure,
  life: Lifetime,
  rpcObserver: RpcObserver,
): Promise<Chains> {
  const { ledger, pool, requestLeadership } = infra;
  // The devnet's chain and the ledger start fresh together: an empty ledger forgets the chain.
  const devnet = config.devnet.enabled
    ? await startDevnet({
        dataDir: config.dataDir,
        port: config.devnet.port,
        fresh: (await ledger.readAll(null, 1)).length === 0,
      }).catch(explainAnvilStart)
    : null;
  if (devnet) life.onStop(() => devnet.stop());
  const fork = config.fork ? await startForkOrExplain(config.fork, config) : null;
  if (fork) life.onStop(() => fork.stop());
  const rpcUrls = new Map(config.rpcUrls);
  if (devnet) rpcUrls.set('devnet', devnet.rpcUrl);
  if (fork) rpcUrls.set(fork.network.name, fork.rpcUrl);
  const live = await startLiveNetworks({
    rpcUrls,
    rpc: config.rpc,
    indexer: fork
      ? {
          ...config.indexer,
          confirmations: new Map([...config.indexer.confirmations, [fork.network.name, 0]]),
        }
      : config.indexer,
    ledger,
    pool,
    inTransaction,
    requestLeadership,
    logger: infra.logger,
    rpcObserver,
  });
  life.onStop(() => live.stop());
  return {
    devnet,
    live,
    rpcUrls,
    local: (name) => name === 'devnet' || name === fork?.network.name,
  };
}

/** The embedded anvil as a fork; a start that cannot go on says why in one line. */
async function startForkOrExplain(
  fork: NonNullable<Config['fork']>,
  config: Config,
): Promise<Fork> {
  return startFork({
    ...fork,
    port: config.devnet.port,
    pidFile: devnetFiles(config.dataDir).pidFile,
  }).catch((error: unknown) => {
    if (error instanceof ForkUnavailable)
      throw new StartupError(`FORK_URL ${fork.url} ${error.message}`, { cause: error });
    return explainAnvilStart(error);
  });
}

/** An embedded anvil that could not start on its port says which variable to change. */
function explainAnvilStart(error: unknown): never {
  if (!(error instanceof AnvilPortInUse)) throw error;
  throw new StartupError(
    `DEVNET_PORT ${error.port} is in use by another program: stop it, or set DEVNET_PORT to a free port (0 picks one)`,
  );
}
