/**
 * The service's configuration: environment variables only, parsed and validated once here.
 * Nothing else reads process.env. A bad value stops start-up with a message naming it.
 */
import path from 'node:path';
import { NETWORKS } from './domain/networks.js';
import type { Address, Hex } from './domain/events.js';
import { parseAddress } from './bytes/hex.js';
import { nonPublicHost } from './net/ip-ranges.js';
import type { RateLimitSettings } from './http/rate-limit.js';

export interface Config {
  port: number;
  host: string;
  /**
   * A second listener on `host` serving `GET /metrics` without the admin key, for a network only
   * the operator's scrapers reach; null: none.
   */
  metricsPort: number | null;
  /** Where the embedded PostgreSQL keeps its cluster and the devnet its chain state. */
  dataDir: string;
  /**
   * Whether the service stops once the process that launched it is gone: `npm start` killed
   * outright must not leave the service (and its PostgreSQL and anvil) running without it.
   */
  stopWithParent: boolean;
  /** External PostgreSQL; when absent the embedded server from npm is started in `dataDir`. */
  databaseUrl: string | null;
  ledger: { kind: 'postgres' } | { kind: 'eventstoredb'; url: string };
  logLevel: string;
  /** RPC URL per network name; a network with one is live. */
  rpcUrls: ReadonlyMap<string, string>;
  /** The embedded anvil devnet, launched unless disabled or DEVNET_RPC_URL names another. */
  devnet: { enabled: boolean; port: number };
  /**
   * The embedded anvil as a fork of another node's network instead of the devnet (on
   * DEVNET_PORT): served under that network's name, with its contracts and liquidity.
   */
  fork: { url: string; block: number | null } | null;
  rpc: { timeoutMs: number; retries: number };
  indexer: {
    pollIntervalMs: number;
    maxBlockRange: number;
    /** Per network: blocks to wait before indexing one. */
    confirmations: ReadonlyMap<string, number>;
    /** Per network: the first block to index; absent: the confirmed head at first start. */
    startBlocks: ReadonlyMap<string, number>;
  };
  denyList: { accounts: ReadonlySet<Address>; tokens: ReadonlySet<Address> };
  validity: { min: number; maxMarket: number; maxLimit: number };
  appDataSizeLimit: number;
  auction: {
    /** Milliseconds between two auctions of a public network; the devnet's own below. */
    intervalMs: number;
    devnetIntervalMs: number;
    /** Seconds an order must remain valid to enter an auction: time to solve and settle. */
    validityMarginSeconds: number;
    /** Milliseconds solvers have to answer an auction. */
    solveTimeoutMs: number;
    /** Milliseconds solvers have to price a quote. */
    quoteSolveTimeoutMs: number;
    /** Milliseconds winners have to settle before their orders return to auctions. */
    settlementDeadlineMs: number;
    /** Whether the built-in solver competes. */
    builtinSolver: boolean;
    /** The built-in solver's slippage tolerance on pool swaps, in basis points. */
    builtinSolverSlippageBps: number;
    externalSolvers: readonly ExternalSolverConfig[];
    /** Per network: the key of the account that sends settlements (an allow-listed solver). */
    driverKeys: ReadonlyMap<string, Hex>;
    /**
     * Per network: the tokens solvers are told they may keep in the settlement contract's
     * buffers (CIP-2 `trusted`); the wrapped native token unless configured.
     */
    trustedTokens: ReadonlyMap<string, ReadonlySet<Address>>;
  };
  /** Live limit orders outside the market one owner may have (`TooManyLimitOrders`). */
  maxLimitOrdersPerOwner: number;
  /** Milliseconds between two sweeps of expired quotes out of the quote store. */
  quoteSweepIntervalMs: number;
  /** Upper bound a write waits for its own projection before answering (read-your-writes). */
  readYourWritesTimeoutMs: number;
  /**
   * The projection thread's heap bound (MiB): a projector that leaks ends its thread, which
   * starts again from its checkpoints, instead of growing the whole process.
   */
  projectionThreadHeapMb: number;
  /** One log line per answered request. */
  accessLog: boolean;
  /** When `/ready` and `/{network}/api/v1/ready` answer 503 (src/readiness.ts). */
  readiness: {
    /** Seconds the oldest event a projector has yet to apply may wait. */
    maxProjectionLagSeconds: number;
    /** Confirmed blocks an indexer may have yet to read. */
    maxIndexerLagBlocks: number;
    /** Milliseconds each dependency has to answer. */
    timeoutMs: number;
  };
  /** The HTTP server's bounds on slow clients (src/http/server.ts). */
  http: {
    /** Milliseconds a request's head and body have to arrive: 408 past it. */
    requestTimeoutMs: number;
    /** Connections one client may hold open at once; 0: no bound. */
    maxConnectionsPerClient: number;
  };
  /** Requests per period per client (burst the same); 0 disables a limit. */
  rateLimits: RateLimitSettings;
  /**
   * Seconds a token found to have no price or no `decimals()` is answered so from memory by the
   * price endpoints, without asking the chain again; 0: asked every time.
   */
  unknownTokenCacheSeconds: number;
  /** Redis shared by several instances for the rate limits; absent: counted in process. */
  redisUrl: string | null;
  /**
   * Proxies in front of the service that append the caller to `X-Forwarded-For`: the caller is
   * the entry the outermost of them added. 0: the header is ignored (anyone could forge it).
   */
  trustedProxies: number;
  /**
   * The operators' key (`ADMIN_API_KEY`): administrative endpoints (`GET /metrics`) need it in
   * `X-API-Key` or `Authorization: Bearer`. Null: they answer 503.
   */
  adminApiKey: string | null;
  notifications: NotificationsConfig;
  version: string;
}

export interface ExternalSolverConfig {
  name: string;
  url: string;
  /** The address it competes as. */
  address: Address;
  /** The networks it solves; all live ones when absent. */
  networks: readonly string[] | null;
  /** Whether quotes ask it too. */
  quote: boolean;
}

export interface NotificationsConfig {
  /** `GET /accounts/{account}/notifications` answers 503 unless enabled and given an API key. */
  enabled: boolean;
  /** Authorises subscription management on behalf of any account (header `X-API-Key`). */
  apiKey: string | null;
  delivery: {
    pollIntervalMs: number;
    /** Attempts per delivery before it is given up (recorded as failed). */
    maxAttempts: number;
    /** Wait after the first failure; doubled after each further one, up to `backoffMaxMs`. */
    backoffBaseMs: number;
    backoffMaxMs: number;
    webhookTimeoutMs: number;
    /**
     * Whether webhooks and push endpoints may be private, loopback or other non-public
     * addresses. Off, a subscriber cannot make the server send into its own network (SSRF).
     */
    allowPrivateAddresses: boolean;
    /** Messages sent at most, 0 for no limit (src/delivery/budgets.ts). */
    budgets: {
      /** Notices per account per clock hour. */
      perAccountPerHour: number;
      /** Notices per destination (an address, a chat, a webhook's host) per clock hour. */
      perDestinationPerHour: number;
      /** Verification requests per destination per day (UTC). */
      verificationsPerDestinationPerDay: number;
    };
  };
  /**
   * Null: no e-mail channel (subscribing one is refused). `allowPlaintextAuth`: the relay's
   * credentials may cross an unencrypted connection (otherwise `smtp://` with credentials
   * requires STARTTLS).
   */
  email: { smtpUrl: string; from: string; allowPlaintextAuth: boolean } | null;
  /** Null: no web-push channel. */
  webPush: { publicKey: string; privateKey: string; subject: string } | null;
  /** Null: no Telegram channel. */
  telegram: { botToken: string; apiUrl: string } | null;
}

/** The notifications API key of a service whose only network is the embedded devnet. */
export const DEVNET_NOTIFICATIONS_API_KEY = 'devnet';
/** The admin API key of a service whose only network is the embedded devnet. */
export const DEVNET_ADMIN_API_KEY = 'devnet';

export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be within ${min}..${max}`);
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function url(env: Env, name: string, protocols: readonly string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    // Not echoed: URLs here carry passwords and API keys (SMTP_URL, REDIS_URL, RPC URLs).
    throw new ConfigError(name, 'is not a URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw;
}

function addresses(env: Env, name: string): ReadonlySet<Address> {
  const raw = env[name] ?? '';
  const set = new Set<Address>();
  for (const item of raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const address = parseAddress(item);
    if (!address) throw new ConfigError(name, `holds an invalid address: "${item}"`);
    set.add(address);
  }
  return set;
}

/** EXTERNAL_SOLVERS: a JSON array of `{ name, url, address, networks? }`. */
function externalSolvers(env: Env): ExternalSolverConfig[] {
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
  return parsed.map((entry: unknown, i): ExternalSolverConfig => {
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

/**
 * The VAPID subject push services may contact: a `mailto:` or `https:` URL of the operator's.
 * Only the devnet alone may go without one (push services refuse a `localhost` contact).
 */
function vapidSubject(env: Env, localOnly: boolean): string {
  const subject = env.WEB_PUSH_SUBJECT;
  if (!subject) {
    if (localOnly) return 'mailto:notices@localhost';
    throw new ConfigError('WEB_PUSH_SUBJECT', 'is required with the VAPID keys: mailto: or https:');
  }
  if (!/^(mailto:\S+@\S+|https:\/\/\S+)$/.test(subject)) {
    throw new ConfigError('WEB_PUSH_SUBJECT', 'must be a mailto: or https: URL');
  }
  return subject;
}

/**
 * `localOnly`: the embedded devnet is the only live network (`npm start` on its defaults). There
 * the API key defaults to `devnet`, so notices show out of the box, and notices may go to
 * receivers on this machine; anywhere else notifications stay off until a key is set, and only
 * public addresses receive them unless DELIVERY_ALLOW_PRIVATE_HOSTS says otherwise.
 */
function notifications(env: Env, localOnly: boolean): NotificationsConfig {
  const smtpUrl = url(env, 'SMTP_URL', ['smtp:', 'smtps:']);
  const [publicKey, privateKey] = [env.WEB_PUSH_VAPID_PUBLIC_KEY, env.WEB_PUSH_VAPID_PRIVATE_KEY];
  if (Boolean(publicKey) !== Boolean(privateKey)) {
    throw new ConfigError(
      'WEB_PUSH_VAPID_PRIVATE_KEY',
      'and WEB_PUSH_VAPID_PUBLIC_KEY go together',
    );
  }
  const botToken = env.TELEGRAM_BOT_TOKEN;
  return {
    enabled: boolean(env, 'NOTIFICATIONS_ENABLED', true),
    apiKey: env.NOTIFICATIONS_API_KEY || (localOnly ? DEVNET_NOTIFICATIONS_API_KEY : null),
    delivery: {
      pollIntervalMs: integer(env, 'DELIVERY_POLL_INTERVAL_MS', 1000, 10, 600_000),
      // With the 1 s base doubling to the 1 h cap: about 8 h of retries before a row fails, so a
      // receiver down for an afternoon loses nothing.
      maxAttempts: integer(env, 'DELIVERY_MAX_ATTEMPTS', 20, 1, 1000),
      backoffBaseMs: integer(env, 'DELIVERY_BACKOFF_BASE_MS', 1000, 1, 3_600_000),
      backoffMaxMs: integer(env, 'DELIVERY_BACKOFF_MAX_MS', 3_600_000, 1, 86_400_000),
      webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 5000, 10, 600_000),
      allowPrivateAddresses: boolean(env, 'DELIVERY_ALLOW_PRIVATE_HOSTS', localOnly),
      budgets: {
        perAccountPerHour: integer(env, 'DELIVERY_ACCOUNT_BUDGET', 1000, 0, 10_000_000),
        perDestinationPerHour: integer(env, 'DELIVERY_DESTINATION_BUDGET', 300, 0, 10_000_000),
        verificationsPerDestinationPerDay: integer(
          env,
          'DELIVERY_VERIFICATION_BUDGET',
          5,
          0,
          10_000,
        ),
      },
    },
    email: smtpUrl
      ? {
          smtpUrl,
          from: env.SMTP_FROM || 'batchbook <notices@localhost>',
          allowPlaintextAuth: boolean(env, 'SMTP_ALLOW_PLAINTEXT_AUTH', false),
        }
      : null,
    webPush:
      publicKey && privateKey
        ? { publicKey, privateKey, subject: vapidSubject(env, localOnly) }
        : null,
    telegram: botToken
      ? {
          botToken,
          apiUrl: url(env, 'TELEGRAM_API_URL', ['http:', 'https:']) ?? 'https://api.telegram.org',
        }
      : null,
  };
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
