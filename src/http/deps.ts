/** What the HTTP layer needs from the rest of the service, wired in src/main.ts. */
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { CancellationRequest } from '../commands/cancel-orders.js';
import type { QuoteResponse } from '../commands/create-quote.js';
import type { PlacedOrder } from '../commands/place-order.js';
import type { RegisterAppDataResult } from '../commands/register-app-data.js';
import type { VerifyResult } from '../commands/destination-verification.js';
import type {
  SubscribeResult,
  SubscriptionCredentials,
  UnsubscribeResult,
} from '../commands/subscriptions.js';
import type { SubscriptionsTypedData } from '../subscriptions/typed-data.js';
import type { Address, Hex } from '../domain/events.js';
import type { Network } from '../domain/networks.js';
import type { AppDataQueries } from '../queries/app-data.js';
import type { AuctionQueries } from '../queries/auctions.js';
import type { CompetitionQueries } from '../queries/competitions.js';
import type { LedgerFeed } from '../queries/ledger-feed.js';
import type { NoticeQueries } from '../queries/notices.js';
import type { OrderHistoryQueries } from '../queries/order-history.js';
import type { OrderQueries } from '../queries/orders.js';
import type { SubscriptionQueries } from '../queries/subscriptions.js';
import type { TokenHolderQueries } from '../queries/token-holders.js';
import type { TradeQueries } from '../queries/trades.js';
import type { RateLimitDeps } from './rate-limit.js';
import type {
  OrderCreationBody,
  OrderQuoteBody,
  SubscriptionCreateBody,
} from '../../schemas/validators.js';

export interface Commands {
  placeOrder(network: Network, body: OrderCreationBody): Promise<PlacedOrder>;
  cancelOrders(network: Network, request: CancellationRequest): Promise<{ position: string }>;
  registerAppData(
    network: Network,
    fullAppData: string,
    expectedHash: Hex | null,
  ): Promise<RegisterAppDataResult>;
  createQuote(network: Network, body: OrderQuoteBody): Promise<QuoteResponse>;
  nativePrice(network: Network, token: Address): Promise<{ price: number }>;
  /** A whole token's value in US dollars (GET /{chainId}/tokens/{token}/usdPrice). */
  usdPrice(network: Network, token: Address): Promise<{ price: number }>;
  /** POST /accounts/{account}/subscriptions (src/commands/subscriptions.ts). */
  subscribe(
    account: Address,
    request: { channel: SubscriptionCreateBody['channel']; credentials: SubscriptionCredentials },
  ): Promise<SubscribeResult>;
  /** DELETE /accounts/{account}/subscriptions/{id}. */
  unsubscribe(
    account: Address,
    request: { id: string; credentials: SubscriptionCredentials },
  ): Promise<UnsubscribeResult>;
  /** Throws the refusal unless the credentials may list the account's subscriptions. */
  authoriseSubscriptionsRead(account: Address, credentials: SubscriptionCredentials): void;
  /** What subscription requests are signed with on this deployment. */
  subscriptionsTypedData(): SubscriptionsTypedData;
  /** POST /accounts/{account}/subscriptions/{id}/verification: an e-mail's code. */
  verifyEmail(account: Address, id: string, code: string): Promise<VerifyResult>;
}

/** A part of the service that is not ready, and why (in words safe to show anyone). */
export interface FailingPart {
  part: string;
  reason: string;
}

/** What `/ready` and `/{network}/api/v1/ready` answer: 200 when ready, else 503. */
export interface ReadinessReport {
  ready: boolean;
  failing: FailingPart[];
  /** Every part checked: `database`, `projection-thread`, `projector:<name>`, `rpc:<network>`, `indexer:<network>`. */
  checked: string[];
}

export interface HttpDeps {
  commands: Commands;
  queries: {
    orders: OrderQueries;
    orderHistory: OrderHistoryQueries;
    appData: AppDataQueries;
    tokenHolders: TokenHolderQueries;
    trades: TradeQueries;
    auctions: AuctionQueries;
    competitions: CompetitionQueries;
    subscriptions: SubscriptionQueries;
    notices: NoticeQueries;
  };
  /** The ledger as it moves, one subscription shared by every live stream. */
  ledgerFeed: LedgerFeed;
  /** Resolves once the named projector has applied the ledger position (bounded wait). */
  readYourWrites(projector: 'orders' | 'app-data' | 'notices', position: string): Promise<void>;
  clock: () => Date;
  version: string;
  logger: Logger;
  /** One log line per answered request (method, route pattern, status, duration, id). */
  accessLog: boolean;
  appDataSizeLimit: number;
  /** Networks with a chain connection; the others refuse writes. */
  liveNetworks: ReadonlySet<string>;
  /** Per-client budgets of every write and the costly reads, and where they are counted. */
  rateLimits: RateLimitDeps;
  /** Proxies in front that append the caller's IP to `X-Forwarded-For` (0: none trusted). */
  trustedProxies: number;
  /** GET /accounts/{account}/notifications answers 503 unless both hold (seed §7.4). */
  notificationsApi: { enabled: boolean; apiKeyConfigured: boolean };
  /** Whether every live network (null) or one network is ready to serve (src/readiness.ts). */
  readiness(network: string | null): Promise<ReadinessReport>;
  /** Counts and times every request (src/metrics), first in the middleware chain. */
  requestMetrics: Middleware;
  /** Operators' endpoints: the key they need (null: off) and what `/metrics` serves. */
  admin: { apiKey: string | null; registry: Registry };
}
