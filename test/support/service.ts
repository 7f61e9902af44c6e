/**
 * The real service, in process, for integration and end-to-end tests: a fresh database on the
 * shared embedded PostgreSQL test cluster, port 0 on 127.0.0.1, silent logs, and optionally a
 * controllable clock. Plus a small JSON-over-HTTP helper for tests that speak raw HTTP.
 */
import {
  moveClockForward,
  newClockShift,
  shiftedClock,
  type ClockShift,
} from '../../src/service-clock.js';
import type { Logger } from 'pino';
import type { Devnet } from '../../src/chain/devnet/devnet.js';
import { loadConfig } from '../../src/config.js';
import type { Ledger } from '../../src/ledger/port.js';
import { createLogger } from '../../src/logger.js';
import type { PostgresDeadlines } from '../../src/postgres/connection-options.js';
import { startService } from '../../src/startup/start-service.js';
import { sharedTestChain } from './chain.js';
import { freshDatabase } from './postgres.js';
import { suiteResource } from './suite-resource.js';

export interface TestService {
  /** Base URL of the server, e.g. http://127.0.0.1:43123 */
  url: string;
  /** Base URL of the devnet order book (chain id 31337). */
  devnet: string;
  /** Base URL of the mainnet order book (chain id 1). */
  mainnet: string;
  ledger: Ledger;
  /** The service's database, to start another service on the same ledger. */
  databaseUrl: string;
  /** The devnet the service launched itself (only with `DEVNET_RPC_URL: ''`). */
  embeddedDevnet: Devnet | null;
  /** The `METRICS_PORT` listener's base URL (only with `METRICS_PORT` set). */
  metricsUrl: string | null;
  stop(): Promise<void>;
}

export interface TestServiceOptions {
  /** Extra environment variables for `loadConfig` (PORT, HOST and DATABASE_URL are fixed). */
  env?: Record<string, string>;
  /** A clock the test moves forward; default: the wall clock. */
  clock?: ControlledClock;
  /** An existing database (a restart); default: a fresh one. */
  databaseUrl?: string;
  /** Deadlines of the service's PostgreSQL connections (short ones for fault tests). */
  postgresDeadlines?: Partial<PostgresDeadlines>;
  /** Where the service logs; default: nowhere. */
  logger?: Logger;
  /** The module its auction thread runs; default: the real one. */
  auctionThreadUrl?: string;
}

export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const databaseUrl = options.databaseUrl ?? (await freshDatabase());
  const config = loadConfig({
    // The devnet and mainnet are the test run's shared local chains (anvil), polled briskly.
    DEVNET_RPC_URL: (await sharedTestChain()).rpcUrl,
    MAINNET_RPC_URL: (await sharedTestChain(1)).rpcUrl,
    INDEXER_POLL_INTERVAL_MS: '50',
    // No auctions unless a suite asks: they would append to the ledger under other tests.
    DEVNET_AUCTION_INTERVAL_MS: '3600000',
    // Suites fire requests far faster than a client may; the rate-limit tests set their own.
    RATE_LIMIT_ORDERS_PER_SECOND: '1000000',
    RATE_LIMIT_QUOTES_PER_SECOND: '1000000',
    RATE_LIMIT_PRICES_PER_SECOND: '1000000',
    RATE_LIMIT_APP_DATA_PER_SECOND: '1000000',
    RATE_LIMIT_CANCELS_PER_SECOND: '1000000',
    RATE_LIMIT_CHANNELS_PER_SECOND: '1000000',
    RATE_LIMIT_CHANNELS_PER_HOUR: '1000000',
    // Suites open many connections at once from 127.0.0.1; the slow-clients suite sets a bound.
    MAX_CONNECTIONS_PER_CLIENT: '0',
    // Suites deliver notices to receivers on 127.0.0.1; the SSRF suite turns this off.
    DELIVERY_ALLOW_PRIVATE_HOSTS: 'true',
    ...options.env,
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
  });
  const service = await startService(config, {
    logger: options.logger ?? createLogger('silent'),
    ...(options.clock ? { clockShift: options.clock.shift } : {}),
    ...(options.postgresDeadlines ? { postgresDeadlines: options.postgresDeadlines } : {}),
    ...(options.auctionThreadUrl ? { auctionThreadUrl: options.auctionThreadUrl } : {}),
  });
  return {
    url: service.url,
    devnet: `${service.url}/devnet`,
    mainnet: `${service.url}/mainnet`,
    ledger: service.ledger,
    databaseUrl,
    embeddedDevnet: service.devnet,
    metricsUrl: service.metricsUrl,
    stop: () => service.stop(),
  };
}

export interface ControlledClock {
  now: () => Date;
  nowSeconds(): number;
  /** Moves the clock forward (never back: other tests' orders must not un-expire). */
  advance(seconds: number): void;
  /** What the service is started with: every thread of it reads this clock. */
  shift: ClockShift;
}

/** Wall-clock time plus an offset the test moves forward. */
export function controlledClock(): ControlledClock {
  const shift = newClockShift();
  const now = shiftedClock(shift);
  return {
    now,
    nowSeconds: () => Math.floor(now().getTime() / 1000),
    advance: (seconds) => moveClockForward(shift, seconds * 1000),
    shift,
  };
}

export interface HttpResult<T = unknown> {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or the text when the body is not JSON. */
  body: T;
  text: string;
}

/** One request with a JSON body (when given); the response body parsed when it is JSON. */
export async function http<T = unknown>(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpResult<T>> {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('json') && text !== '') {
    parsed = JSON.parse(text);
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/** A test service for the whole calling suite: started before its tests, stopped after them. */
export const suiteTestService = (options: TestServiceOptions = {}): (() => TestService) =>
  suiteResource(
    () => startTestService(options),
    (service) => service.stop(),
  );
