/** What the service is configured with, once the environment is parsed (src/config.ts). */
import type { ExternalSolverConfig } from '../auction/external-solver.js';
import type { Address, Hex } from '../domain/events.js';
import type { RateLimitSettings } from '../http/rate-limit.js';

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
    externalSolvers: readonly ExternalSolverEntry[];
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
  /**
   * How long the notices projector, which no command waits on as a rule, may hold a batch open
   * for more events while no wait of this instance wants it (ms; 0: never).
   */
  projectionBatchWindowMs: number;
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

/** An engine of `EXTERNAL_SOLVERS`, with the networks it solves: all live ones when null. */
export interface ExternalSolverEntry extends ExternalSolverConfig {
  networks: readonly string[] | null;
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
