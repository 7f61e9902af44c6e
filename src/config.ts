/**
 * The service's configuration: environment variables only, parsed and validated once here.
 * Nothing else reads process.env. A bad value stops start-up with a message naming it.
 */
import path from 'node:path';
import { NETWORKS } from './domain/networks.js';
import type { Address, Hex } from './domain/events.js';
import { parseAddress } from './bytes/hex.js';
import { nonPublicHost } from './net/ip-ranges.js';
import { notifications } from './config/notifications.js';
import type { Config, ExternalSolverEntry } from './config/shape.js';
import { addresses, boolean, ConfigError, integer, url, type Env } from './config/values.js';

export type * from './config/shape.js';
export { ConfigError } from './config/values.js';
export { DEVNET_NOTIFICATIONS_API_KEY } from './config/notifications.js';

/** The admin API key of a service whose only network is the embedded devnet. */
export const DEVNET_ADMIN_API_KEY = 'devnet';

/** EXTERNAL_SOLVERS: a JSON array of `{ name, url, address, networks? }`. */
function externalSolvers(env: Env): ExternalSolverEntry[] {
  const name = 'EXTERNAL_SOLVERS';
  const raw = env[name]?.trim();
  if (!raw) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(
      name,
      'must be a JSON array of {"name","url","address","networks"?,"quote"?}',
    );
  }
  if (!Array.isArray(parsed)) throw new ConfigError(name, 'must be a JSON array');
  const names = new Set<string>();
  return parsed.map((entry: unknown, i): ExternalSolverEntry => {
    const at = `entry ${i}`;
    const e = (entry ?? {}) as Record<string, unknown>;
    if (typeof e.name !== 'string' || !/^[\w.-]{1,64}$/.test(e.name) || e.name === 'builtin') {
      throw new ConfigError(
        name,
        `${at}: "name" must be 1-64 letters, digits, "_.-", not "builtin"`,
      );
    }
    if (names.has(e.name)) throw new ConfigError(name, `${at}: "${e.name}" is named twice`);
    names.add(e.name);
    const solverUrl =
      typeof e.url === 'string' ? url({ [name]: e.url }, name, ['http:', 'https:']) : null;
    if (!solverUrl) throw new ConfigError(name, `${at}: "url" must be an http(s) URL`);
    const address = typeof e.address === 'string' ? parseAddress(e.address) : null;
    if (!address) throw new ConfigError(name, `${at}: "address" must be an address`);
    let networks: string[] | null = null;
    if (e.networks !== undefined) {
      const known = new Set(NETWORKS.map((n) => n.name));
      if (!Array.isArray(e.networks) || !e.networks.every((n) => known.has(n as string))) {
        throw new ConfigError(name, `${at}: "networks" must list network names`);
      }
      networks = e.networks as string[];
    }
    if (e.quote !== undefined && typeof e.quote !== 'boolean')
      throw new ConfigError(name, `${at}: "quote" must be true or false`);
    return { name: e.name, url: solverUrl, address, networks, quote: e.quote === true };
  });
}

/** `<NAME>_TRUSTED_TOKENS` per network; the network's wrapped native token where unset. */
function trustedTokens(env: Env): Map<string, ReadonlySet<Address>> {
  return new Map(
    NETWORKS.map((network) => {
      const variable = `${network.name.toUpperCase()}_TRUSTED_TOKENS`;
      const configured = addresses(env, variable);
      return [network.name, env[variable] ? configured : new Set([network.wrappedNativeToken])];
    }),
  );
}

/** `<NAME>_DRIVER_PRIVATE_KEY` per network. */
function driverKeys(env: Env): Map<string, Hex> {
  const keys = new Map<string, Hex>();
  for (const network of NETWORKS) {
    const variable = `${network.name.toUpperCase()}_DRIVER_PRIVATE_KEY`;
    const raw = env[variable]?.trim();
    if (!raw) continue;
    if (!/^0x[0-9a-fA-F]{64}$/.test(raw)) {
      throw new ConfigError(variable, 'must be a 32-byte 0x-hex private key');
    }
    keys.set(network.name, raw.toLowerCase() as Hex);
  }
  return keys;
}

function ledgerConfig(env: Env): Config['ledger'] {
  const kind = env.LEDGER ?? 'postgres';
  if (kind === 'postgres') return { kind };
  if (kind === 'eventstoredb') {
    const esdb = url(env, 'EVENTSTORE_URL', ['esdb:', 'esdb+discover:', 'kurrentdb:']);
    if (!esdb) throw new ConfigError('EVENTSTORE_URL', 'is required when LEDGER=eventstoredb');
    return { kind, url: esdb };
  }
  throw new ConfigError('LEDGER', `must be "postgres" or "eventstoredb", got "${kind}"`);
}

/** The chain settings of every network: its RPC URL, confirmations and indexer start. */
function chains(
  env: Env,
): Pick<Config, 'rpcUrls'> & Pick<Config['indexer'], 'confirmations' | 'startBlocks'> {
  const rpcUrls = new Map<string, string>();
  const confirmations = new Map<string, number>();
  const startBlocks = new Map<string, number>();
  for (const network of NETWORKS) {
    const prefix = network.name.toUpperCase();
    const rpc = url(env, network.rpcUrlVariable, ['http:', 'https:']);
    if (rpc) rpcUrls.set(network.name, rpc);
    // A local chain does not reorg by itself; public ones do, a few blocks deep.
    const local = network.name === 'devnet';
    confirmations.set(
      network.name,
      integer(env, `${prefix}_CONFIRMATIONS`, local ? 0 : 3, 0, 10_000),
    );
    // A public chain's history is long: without a start block, indexing begins at its head.
    const startVariable = `${prefix}_START_BLOCK`;
    if (local || env[startVariable]) {
      startBlocks.set(network.name, integer(env, startVariable, 0, 0, Number.MAX_SAFE_INTEGER));
    }
  }
  return { rpcUrls, confirmations, startBlocks };
}

/**
 * The variables whose devnet-alone defaults (`devnet` keys, private receivers) are in force.
 * With notifications off, their key and receivers open nothing.
 */
function devnetDefaultsInForce(env: Env, localOnly: boolean): string[] {
  const notifications = boolean(env, 'NOTIFICATIONS_ENABLED', true)
    ? ['NOTIFICATIONS_API_KEY', 'DELIVERY_ALLOW_PRIVATE_HOSTS']
    : [];
  return localOnly ? ['ADMIN_API_KEY', ...notifications].filter((name) => !env[name]) : [];
}

/**
 * Where to listen. The devnet's defaults are keys everyone knows (`/metrics`, any account's
 * channels) and notices sent to private addresses (a webhook to 169.254.169.254): while any is
 * in force the service listens on loopback alone, as anvil does, unless HOST says otherwise, and
 * a HOST beyond loopback stops the start until they are set.
 */
function listenHost(env: Env, devnetDefaults: readonly string[]): string {
  const host = env.HOST;
  if (!host) return devnetDefaults.length > 0 ? '127.0.0.1' : '0.0.0.0';
  if (devnetDefaults.length > 0 && !nonPublicHost(host)?.startsWith('loopback')) {
    const settings = devnetDefaults.map((name) =>
      name === 'DELIVERY_ALLOW_PRIVATE_HOSTS'
        ? `${name} (false, unless notices go to private receivers)`
        : `${name} (a key of your own)`,
    );
    throw new ConfigError(
      'HOST',
      `${host} would open the devnet's defaults to the network: set ${settings.join(', ')}, or leave HOST unset to listen on 127.0.0.1 alone`,
    );
  }
  return host;
}

export function loadConfig(env: Env = process.env): Config {
  const { rpcUrls, confirmations, startBlocks } = chains(env);
  const forkUrl = url(env, 'FORK_URL', ['http:', 'https:']);
  // `npm start` on its defaults: the embedded devnet is the only live network.
  const localOnly = boolean(env, 'DEVNET', true) && rpcUrls.size === 0;
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    metricsPort: env.METRICS_PORT ? integer(env, 'METRICS_PORT', 0, 0, 65535) : null,
    host: listenHost(env, devnetDefaultsInForce(env, localOnly)),
    dataDir: path.resolve(env.DATA_DIR || 'data'),
    // npm names the script it runs: under `npm start`, npm is the process to outlive no longer.
    stopWithParent: boolean(env, 'STOP_WITH_PARENT', env.npm_lifecycle_event !== undefined),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    ledger: ledgerConfig(env),
    logLevel: env.LOG_LEVEL || 'info',
    accessLog: boolean(env, 'ACCESS_LOG', true),
    rpcUrls,
    devnet: {
      enabled: boolean(env, 'DEVNET', true) && !rpcUrls.has('devnet') && forkUrl === null,
      port: integer(env, 'DEVNET_PORT', 8545, 0, 65535),
    },
    fork: forkUrl
      ? {
          url: forkUrl,
          block: env.FORK_BLOCK ? integer(env, 'FORK_BLOCK', 0, 0, Number.MAX_SAFE_INTEGER) : null,
        }
      : null,
    rpc: {
      timeoutMs: integer(env, 'RPC_TIMEOUT_MS', 10_000, 100, 600_000),
      retries: integer(env, 'RPC_RETRIES', 3, 0, 20),
    },
    indexer: {
      pollIntervalMs: integer(env, 'INDEXER_POLL_INTERVAL_MS', 1000, 10, 600_000),
      maxBlockRange: integer(env, 'INDEXER_MAX_BLOCK_RANGE', 1000, 1, 1_000_000),
      confirmations,
      startBlocks,
    },
    denyList: {
      accounts: addresses(env, 'DENY_LIST_ACCOUNTS'),
      tokens: addresses(env, 'DENY_LIST_TOKENS'),
    },
    validity: {
      min: integer(env, 'MIN_ORDER_VALIDITY', 60, 0, 86_400),
      maxMarket: integer(env, 'MAX_MARKET_ORDER_VALIDITY', 3 * 3600, 60, 2 ** 32),
      maxLimit: integer(env, 'MAX_LIMIT_ORDER_VALIDITY', 365 * 86_400, 60, 2 ** 32),
    },
    appDataSizeLimit: integer(env, 'APP_DATA_SIZE_LIMIT', 8192, 2, 1_048_576),
    maxLimitOrdersPerOwner: integer(env, 'MAX_LIMIT_ORDERS_PER_OWNER', 10, 0, 1_000_000),
    quoteSweepIntervalMs: integer(env, 'QUOTE_SWEEP_INTERVAL_MS', 60_000, 10, 3_600_000),
    auction: {
      intervalMs: integer(env, 'AUCTION_INTERVAL_MS', 12_000, 100, 3_600_000),
      // The devnet mines on demand: a short interval keeps a demo trade quick.
      devnetIntervalMs: integer(env, 'DEVNET_AUCTION_INTERVAL_MS', 2_000, 10, 3_600_000),
      validityMarginSeconds: integer(env, 'AUCTION_VALIDITY_MARGIN_SECONDS', 30, 0, 86_400),
      solveTimeoutMs: integer(env, 'SOLVE_TIMEOUT_MS', 5_000, 10, 600_000),
      quoteSolveTimeoutMs: integer(env, 'QUOTE_SOLVE_TIMEOUT_MS', 1_000, 10, 60_000),
      settlementDeadlineMs: integer(env, 'SETTLEMENT_DEADLINE_MS', 120_000, 1_000, 3_600_000),
      builtinSolver: boolean(env, 'BUILTIN_SOLVER', true),
      builtinSolverSlippageBps: integer(env, 'BUILTIN_SOLVER_SLIPPAGE_BPS', 10, 0, 1_000),
      externalSolvers: externalSolvers(env),
      driverKeys: driverKeys(env),
      trustedTokens: trustedTokens(env),
    },
    readYourWritesTimeoutMs: integer(env, 'READ_YOUR_WRITES_TIMEOUT_MS', 2000, 0, 60_000),
    projectionThreadHeapMb: integer(env, 'PROJECTION_THREAD_HEAP_MB', 1024, 64, 65_536),
    projectionBatchWindowMs: integer(env, 'PROJECTION_BATCH_WINDOW_MS', 25, 0, 1_000),
    readiness: {
      maxProjectionLagSeconds: integer(env, 'READY_PROJECTION_LAG_SECONDS', 30, 0, 86_400),
      maxIndexerLagBlocks: integer(env, 'READY_INDEXER_LAG_BLOCKS', 20, 0, 1_000_000),
      timeoutMs: integer(env, 'READY_TIMEOUT_MS', 2_000, 10, 60_000),
    },
    http: {
      requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 10_000, 10, 600_000),
      maxConnectionsPerClient: integer(env, 'MAX_CONNECTIONS_PER_CLIENT', 64, 0, 1_000_000),
    },
    rateLimits: {
      quotesPerSecond: integer(env, 'RATE_LIMIT_QUOTES_PER_SECOND', 10, 0, 1_000_000),
      ordersPerSecond: integer(env, 'RATE_LIMIT_ORDERS_PER_SECOND', 5, 0, 1_000_000),
      pricesPerSecond: integer(env, 'RATE_LIMIT_PRICES_PER_SECOND', 10, 0, 1_000_000),
      appDataPerSecond: integer(env, 'RATE_LIMIT_APP_DATA_PER_SECOND', 5, 0, 1_000_000),
      cancellationsPerSecond: integer(env, 'RATE_LIMIT_CANCELS_PER_SECOND', 5, 0, 1_000_000),
      subscriptionChangesPerSecond: integer(env, 'RATE_LIMIT_CHANNELS_PER_SECOND', 2, 0, 1_000_000),
      subscriptionsPerHour: integer(env, 'RATE_LIMIT_CHANNELS_PER_HOUR', 20, 0, 1_000_000),
    },
    unknownTokenCacheSeconds: integer(env, 'UNKNOWN_TOKEN_CACHE_SECONDS', 300, 0, 86_400),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    trustedProxies: integer(env, 'TRUSTED_PROXIES', 0, 0, 16),
    notifications: notifications(env, localOnly),
    adminApiKey: env.ADMIN_API_KEY || (localOnly ? DEVNET_ADMIN_API_KEY : null),
    version: env.BATCHBOOK_VERSION || 'batchbook-0.1.0',
  };
}
