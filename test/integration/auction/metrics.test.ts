/**
 * The metrics an operator watches (issue 21, item 2), scraped after a devnet trade: orders
 * placed and refused by errorType, rate-limit refusals by route, auctions cut with their
 * filtered orders by reason, each solver's answers, time and wins, settlements and their gas,
 * indexer and projector lags, JSON-RPC requests, errors and latency by method, deliveries by
 * channel and outcome. Served on the main port to the admin key, and on `METRICS_PORT` without.
 */
import { expect } from 'chai';
import { Contract, Wallet, toQuantity } from 'ethers';
import type { Address } from '../../../src/domain/events.js';
import { networkByName } from '../../../src/domain/networks.js';
import { startTestChain, type TestChain } from '../../support/chain.js';
import { placeTrades } from '../../support/place.js';
import { parseExposition, samplesOf, total, type PromSample } from '../../support/prometheus.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/receivers.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import { signCowPair, signTrade, sellOrder, type SignedTrade } from '../../support/settle.js';
import { appDataHash } from '../../support/signing.js';
import { waitFor } from '../../support/wait.js';

const ADMIN_KEY = 'operators-only';
const NOTIFICATIONS_KEY = 'notifications-key';
const devnet = networkByName('devnet')!;

describe('metrics: the families an operator watches, after a devnet trade', function () {
  this.timeout(120_000);
  let chain: TestChain;
  let hook: WebhookReceiver;
  let service: TestService;

  before(async () => {
    chain = await startTestChain();
    // Its first request fails: the delivery is retried, then delivered.
    hook = await startWebhookReceiver({ answerChallenges: true, failFirst: 1 });
    service = await startTestService({
      env: {
        DEVNET_RPC_URL: chain.rpcUrl,
        DEVNET_AUCTION_INTERVAL_MS: '100',
        ADMIN_API_KEY: ADMIN_KEY,
        NOTIFICATIONS_API_KEY: NOTIFICATIONS_KEY,
        METRICS_PORT: '0',
        RATE_LIMIT_PRICES_PER_SECOND: '1',
        DELIVERY_POLL_INTERVAL_MS: '50',
        DELIVERY_BACKOFF_BASE_MS: '50',
      },
    });
  });

  after(async () => {
    await service?.stop();
    await hook?.close();
    await chain?.stop();
  });

  const scrape = async (): Promise<PromSample[]> => {
    const res = await http('GET', `${service.url}/metrics`, undefined, { 'x-api-key': ADMIN_KEY });
    expect(res.status).to.equal(200);
    return parseExposition(res.text);
  };

  /** A CoW pair of two new owners, funded and approved. */
  async function freshPair(): Promise<[SignedTrade, SignedTrade]> {
    const [a, b] = [Wallet.createRandom(), Wallet.createRandom()];
    const dusd = chain.deployment.tokens.find((t) => t.symbol === 'DUSD')!.address;
    await chain.fund(a.address as Address, chain.deployment.weth.address, 2n * 10n ** 18n);
    await chain.fund(b.address as Address, dusd, 10_000n * 10n ** 18n);
    return signCowPair(chain, [a, b]);
  }

  it('counts and times what happened, with its labels', async () => {
    const before = await scrape();
    const placedBefore = total(before, 'batchbook_orders_placed_total', { network: 'devnet' });

    // A trade: a CoW pair the built-in solver matches, settled and indexed.
    const pair = await freshPair();
    await placeTrades(service.devnet, pair);
    await waitFor(
      async () => {
        const { body } = await http<{ status: string }>(
          'GET',
          `${service.devnet}/api/v1/orders/${pair[0].uid}`,
        );
        return body.status === 'fulfilled';
      },
      { timeoutMs: 60_000, intervalMs: 100, description: 'the pair traded' },
    );

    // An order the cut leaves out: its owner withdrew the vault relayer's allowance.
    const owner = Wallet.createRandom().connect(chain.provider);
    const weth = chain.deployment.weth.address;
    await chain.fund(owner.address as Address, weth, 10n ** 18n);
    await chain.provider.send('anvil_setBalance', [owner.address, toQuantity(10n ** 18n)]);
    const lone = await signTrade(
      chain,
      owner,
      sellOrder({
        sellToken: weth,
        buyToken: chain.deployment.tokens.find((t) => t.symbol === 'DCOW')!.address,
        sellAmount: String(10n ** 17n),
        buyAmount: String(10n ** 30n),
        appData: appDataHash('{}'),
      }),
    );
    await placeTrades(service.devnet, [lone]);
    const token = new Contract(weth, ['function approve(address,uint256) returns (bool)'], owner);
    await (await token.getFunction('approve')(devnet.vaultRelayer, 0n)).wait();

    // A refused order, a rate-limited price read, and a webhook delivery that fails once.
    const refused = await http<{ errorType: string }>('POST', `${service.devnet}/api/v1/orders`, {
      ...pair[0].order,
      signature: `0x${'11'.repeat(65)}`,
      signingScheme: 'eip712',
      from: pair[0].owner,
    });
    expect(refused.status).to.be.within(400, 499);
    const priceUrl = `${service.devnet}/api/v1/token/${weth}/native_price`;
    const prices = [await http('GET', priceUrl), await http('GET', priceUrl)];
    expect(prices.map((p) => p.status)).to.include(429);
    // An EIP-1271 order "signed" by a contract without isValidSignature: the call reverts.
    const unsigned = await http<{ errorType: string }>('POST', `${service.devnet}/api/v1/orders`, {
      ...pair[0].order,
      signature: '0x',
      signingScheme: 'eip1271',
      from: devnet.settlementContract,
    });
    expect(unsigned.status, unsigned.text).to.be.within(400, 499);
    const subscribed = await http(
      'POST',
      `${service.url}/accounts/${pair[0].owner}/subscriptions`,
      { channel: { kind: 'webhook', url: hook.url } },
      { 'x-api-key': NOTIFICATIONS_KEY },
    );
    expect(subscribed.status, subscribed.text).to.equal(201);

    let after: PromSample[] = [];
    await waitFor(
      async () => {
        after = await scrape();
        return (
          total(after, 'batchbook_auction_filtered_orders', {
            network: 'devnet',
            reason: 'InsufficientBalance',
          }) >= 1 &&
          total(after, 'batchbook_deliveries_total', {
            channel: 'webhook',
            outcome: 'delivered',
          }) >= 1 &&
          total(after, 'batchbook_settlements_total', { outcome: 'mined' }) >= 1
        );
      },
      {
        timeoutMs: 30_000,
        intervalMs: 200,
        description: 'the cut, the delivery and the settlement',
      },
    );

    const devnetOnly = { network: 'devnet' };
    expect(total(after, 'batchbook_orders_placed_total', devnetOnly)).to.equal(placedBefore + 3);
    expect(
      total(after, 'batchbook_orders_rejected_total', {
        network: 'devnet',
        error_type: refused.body.errorType,
      }),
    ).to.equal(1);
    expect(
      total(after, 'batchbook_rate_limit_refusals_total', {
        route: '/:network/api/v1/token/:token/native_price',
      }),
    ).to.be.at.least(1);

    expect(total(after, 'batchbook_auctions_cut_total', devnetOnly)).to.be.at.least(1);
    expect(samplesOf(after, 'batchbook_auction_orders', devnetOnly)).to.have.length(1);
    const builtin = { network: 'devnet', solver: 'builtin' };
    expect(
      total(after, 'batchbook_solver_answers_total', { ...builtin, outcome: 'solutions' }),
    ).to.be.at.least(1);
    expect(total(after, 'batchbook_solver_solve_duration_seconds_count', builtin)).to.equal(
      total(after, 'batchbook_solver_answers_total', builtin),
    );
    expect(total(after, 'batchbook_solver_wins_total', builtin)).to.be.at.least(1);
    expect(
      total(after, 'batchbook_settlements_total', { ...builtin, outcome: 'submitted' }),
    ).to.be.at.least(1);
    expect(total(after, 'batchbook_settlement_gas_used_count', devnetOnly)).to.be.at.least(1);
    expect(total(after, 'batchbook_settlement_gas_used_sum', devnetOnly)).to.be.above(50_000);

    const [indexerLag] = samplesOf(after, 'batchbook_indexer_lag_blocks', devnetOnly);
    expect(indexerLag?.value).to.be.a('number').at.least(0);
    for (const projector of ['orders', 'trades', 'auctions', 'notices']) {
      expect(samplesOf(after, 'batchbook_projector_lag_events', { projector })).to.have.length(1);
      expect(samplesOf(after, 'batchbook_projector_lag_seconds', { projector })).to.have.length(1);
    }

    for (const method of ['eth_blockNumber', 'eth_call', 'eth_getLogs', 'eth_sendRawTransaction']) {
      expect(
        total(after, 'batchbook_rpc_requests_total', { ...devnetOnly, method }),
        method,
      ).to.be.above(0);
      expect(
        total(after, 'batchbook_rpc_request_duration_seconds_count', { ...devnetOnly, method }),
        method,
      ).to.equal(total(after, 'batchbook_rpc_requests_total', { ...devnetOnly, method }));
    }
    expect(
      total(after, 'batchbook_rpc_errors_total', {
        ...devnetOnly,
        method: 'eth_call',
        kind: 'rpc',
      }),
    ).to.be.at.least(1);

    expect(
      total(after, 'batchbook_deliveries_total', { channel: 'webhook', outcome: 'retrying' }),
    ).to.equal(1);
    expect(total(after, 'batchbook_read_your_writes_wait_seconds_count')).to.be.at.least(3);
  });

  it('serves the same families on METRICS_PORT without a key, and nothing else there', async () => {
    expect(service.metricsUrl).to.be.a('string');
    const res = await http('GET', `${service.metricsUrl}/metrics`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    const names = new Set(parseExposition(res.text).map((s) => s.name));
    for (const name of [
      'batchbook_http_requests_total',
      'batchbook_orders_placed_total',
      'batchbook_projector_lag_seconds',
    ]) {
      expect(names, name).to.include(name);
    }
    expect((await http('GET', `${service.metricsUrl}/ready`)).status).to.equal(404);
    expect((await http('POST', `${service.metricsUrl}/metrics`)).status).to.equal(404);
    // The main port keeps its key.
    expect((await http('GET', `${service.url}/metrics`)).status).to.equal(401);
  });
});
