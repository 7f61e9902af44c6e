/**
 * The web app in a real browser (Debian's Chromium through playwright-core) against the real
 * service on the shared devnet chain, its auctions cut every 200 ms:
 *
 * - a demo account trades through the Trade page (the official SDK quotes, signs and submits),
 *   an opposite order is placed, and the order fills against it;
 * - the Auctions page, open all along, shows the competition that matched them as it happens;
 * - the Order page shows the fill and the order's history;
 * - the Account page adds a webhook, signed by the demo account, and a local receiver gets the
 *   notice of the account's next fill; then removes it, signed again;
 * - the search box takes a UID, an account, a token and a settlement's transaction hash to their
 *   pages;
 * - a limit order placed on the Trade page is cancelled there with a signed cancellation, and its
 *   Order page's history ends with it;
 * - every page on a network the server does not run live: read-only, said so, no script error;
 * - readable errors, the lost live connection said and retried, labels, keyboard access and
 *   WCAG AA (axe-core), a phone's width.
 *
 * Each page's screenshot goes to test-output/screenshots/. The benchmark figures (the first
 * page's compressed JS and CSS, first render, first live update after an auction) are printed
 * for BENCHMARKS.md.
 */
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { buildWebApp } from '../../scripts/build-web.js';
import { devnetDemoAccounts } from '../../src/chain/devnet/accounts.js';
import type { Address } from '../../src/domain/events.js';
import { ensureChromium, launchChromium } from '../support/browser.js';
import { sharedTestChain, type TestChain } from '../support/chain.js';
import { placeTrades } from '../support/place.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/receivers.js';
import { http, startTestService, type TestService } from '../support/service.js';
import { sellOrder, signTrade } from '../support/settle.js';
import { newWallet } from '../support/signing.js';
import { waitFor } from '../support/wait.js';

const SCREENSHOTS = 'test-output/screenshots';
const API_KEY = 'web-app-key';
/** The Trade page signs with this one (anvil's test mnemonic, funded and approved on devnets). */
const DEMO_INDEX = 4;
const E18 = 10n ** 18n;

interface FirstPage {
  firstContentfulPaintMs: number | null;
  resources: { name: string; transferred: number }[];
}

describe('e2e: the web app in Chromium', function () {
  this.timeout(180_000);
  let chain: TestChain;
  let service: TestService;
  let receiver: WebhookReceiver;
  let browser: Browser;
  const demo = devnetDemoAccounts()[DEMO_INDEX]!;

  before(async function () {
    if (!(await ensureChromium())) {
      console.log('    Chromium is not installed and could not be: the browser suite is skipped');
      this.skip();
    }
    await buildWebApp();
    await mkdir(SCREENSHOTS, { recursive: true });
    chain = await sharedTestChain();
    receiver = await startWebhookReceiver({ answerChallenges: true });
    service = await startTestService({
      env: {
        DEVNET_AUCTION_INTERVAL_MS: '200',
        NOTIFICATIONS_API_KEY: API_KEY,
        DELIVERY_POLL_INTERVAL_MS: '50',
      },
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
    await receiver?.close();
  });

  async function open(path: string, viewport = { width: 1280, height: 900 }): Promise<Page> {
    const page = await browser.newPage({ viewport });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/Failed to load resource/.test(message.text())) {
        problems.push(message.text());
      }
    });
    await page.goto(`${service.url}/${path}`);
    await page.getByText(/^Live$/).waitFor({ timeout: 10_000 });
    Object.assign(page, { problems });
    return page;
  }
  const problemsOf = (page: Page) => (page as Page & { problems: string[] }).problems;

  /** axe-core's WCAG 2 A and AA rules on the page as it stands: no violation. */
  async function expectAccessible(page: Page, name: string): Promise<void> {
    const require = createRequire(import.meta.url);
    await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    // Run in the page (this file is checked without the DOM's types): the rules' violations.
    const violations = await page.evaluate<string[]>(`axe
      .run({ runOnly: ['wcag2a', 'wcag2aa'] })
      .then((result) => result.violations.map(
        (v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
    expect(violations, `${name}: WCAG violations`).to.deep.equal([]);
  }

  /** An order opposite the Trade page's: 3,000 DUSD for at least 1 WETH, more than pools give. */
  async function placeOppositeOrder(): Promise<string> {
    const trader = newWallet();
    const dusd = chain.deployment.tokens.find((t) => t.symbol === 'DUSD')!.address;
    await chain.fund(trader.address as Address, dusd, 3_000n * E18);
    const trade = await signTrade(
      chain,
      trader,
      sellOrder({
        sellToken: dusd,
        buyToken: chain.deployment.weth.address,
        sellAmount: String(3_000n * E18),
        buyAmount: String(E18),
      }),
    );
    await placeTrades(service.devnet, [trade]);
    return trade.uid;
  }

  /** Through the Trade page: the demo account sells `amount` WETH for DUSD; its order's UID. */
  async function tradeThroughThePage(
    page: Page,
    amount: string,
    { screenshot, least }: { screenshot?: string; least?: string } = {},
  ): Promise<string> {
    await page
      .getByLabel('Sign with')
      .selectOption({ label: `Devnet demo account #${DEMO_INDEX}` });
    await page.getByLabel('Sell').selectOption({ label: 'WETH' });
    await page.getByLabel('Buy').selectOption({ label: 'DUSD' });
    await page.getByLabel('Amount').fill(amount);
    await page.getByRole('button', { name: 'Get quote' }).click();
    await page.locator('[data-quote-id]').waitFor();
    if (least !== undefined) await page.getByLabel('Buy at least').fill(least);
    if (screenshot) await page.screenshot({ path: `${SCREENSHOTS}/${screenshot}`, fullPage: true });
    const link = page.getByRole('region', { name: 'Your order' }).getByRole('link').first();
    const earlier = (await link.count()) > 0 ? await link.getAttribute('href') : null;
    await page.getByRole('button', { name: 'Sign and submit' }).click();
    // The order followed is the one just placed, not one placed before on this page.
    await waitFor(
      async () => (await link.count()) > 0 && (await link.getAttribute('href')) !== earlier,
      {
        timeoutMs: 10_000,
        description: 'the placed order on the Trade page',
      },
    );
    return decodeURIComponent((await link.getAttribute('href'))!.split('/').at(-1)!);
  }

  it('trades through the Trade page, shows the live competition that matched it, the fill and its history, and delivers a notice to a webhook the account adds', async () => {
    // The home page, open all along: when does each competition first show?
    const home = await open('');
    const firstPage = await home.evaluate<FirstPage>(`(() => {
      const paint = performance.getEntriesByName('first-contentful-paint')[0];
      return {
        firstContentfulPaintMs: paint ? Math.round(paint.startTime) : null,
        resources: performance.getEntriesByType('resource')
          .filter((r) => /\\.(js|css)$/.test(r.name))
          .map((r) => ({ name: r.name.split('/').at(-1), transferred: r.encodedBodySize })),
      };
    })()`);
    // When each competition first shows on the open page.
    await home.evaluate(`(() => {
      const seen = {};
      window.seenAuctions = seen;
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('[data-auction-id]')) {
          seen[el.dataset.auctionId] ??= Date.now();
        }
      }).observe(document.body, { subtree: true, childList: true });
    })()`);

    const opposite = await placeOppositeOrder();
    const trade = await open('#/devnet/trade');
    const uid = await tradeThroughThePage(trade, '1', { screenshot: 'trade-quote.png' });
    await trade.locator('[data-status="fulfilled"]').waitFor({ timeout: 30_000 });
    await trade.screenshot({ path: `${SCREENSHOTS}/trade-filled.png`, fullPage: true });

    // The competition that matched them, on the page that was open: a winner trading both.
    const matched = home.locator('article[data-auction-id]', {
      has: home.locator('tr.winner', {
        has: home.locator(`a[href$="${uid}"]`),
      }),
    });
    await matched.first().waitFor({ timeout: 15_000 });
    expect(
      await matched.first().locator('tr.winner').locator(`a[href$="${opposite}"]`).count(),
    ).to.equal(1);
    const auctionId = (await matched.first().getAttribute('data-auction-id'))!;
    expect(await matched.first().locator('figure svg[role="img"]').count()).to.equal(1);
    await home.screenshot({ path: `${SCREENSHOTS}/auctions.png`, fullPage: true });

    // The Order page: the fill and the history, from placement to trade.
    const order = await open(`#/devnet/order/${uid}`);
    await order.locator('[data-status="fulfilled"]').waitFor();
    await order.locator('li[data-event="TradeSettled"]').waitFor();
    const events = await order
      .locator('ol.history li')
      .evaluateAll((items) => items.map((li) => li.getAttribute('data-event')));
    expect(events[0]).to.equal('OrderPlaced');
    expect(events).to.include.members(['AuctionClosed', 'SettlementSubmitted', 'TradeSettled']);
    expect(events.indexOf('TradeSettled')).to.be.greaterThan(events.indexOf('AuctionClosed'));
    await order.locator('figure svg[aria-label^="Limit price"]').waitFor();
    await order.screenshot({ path: `${SCREENSHOTS}/order.png`, fullPage: true });

    // The search box: the order, the account, a token and the settlement by its transaction.
    const [settled] = (
      await http<{ txHash: string }[]>('GET', `${service.devnet}/api/v1/trades?orderUid=${uid}`)
    ).body;
    const weth = chain.deployment.weth.address.toLowerCase();
    for (const [query, landing] of [
      [uid, `#/devnet/order/${uid}`],
      [demo.address, `#/devnet/account/${demo.address.toLowerCase()}`],
      [weth, `#/devnet/token/${weth}`],
      [settled!.txHash, `#/devnet/auction/${auctionId}`],
    ] as const) {
      await order.getByLabel('Search').fill(query);
      await order.getByLabel('Search').press('Enter');
      await waitFor(async () => (await order.evaluate<string>('location.hash')) === landing, {
        timeoutMs: 5_000,
        description: `the search for ${query} to land on ${landing}`,
      });
    }
    await order.getByRole('heading', { level: 1 }).getByText(auctionId).waitFor();

    // The benchmark's live figure: the auction recorded, then shown on the open page.
    const history = await http<{ type: string; recordedAt: string; data: { id?: number } }[]>(
      'GET',
      `${service.devnet}/api/v1/orders/${uid}/events`,
    );
    const recorded = history.body.find(
      (e) => e.type === 'AuctionClosed' && String(e.data.id) === auctionId,
    )!;
    const seenAt = await home.evaluate<number>(`window.seenAuctions[${JSON.stringify(auctionId)}]`);
    console.log(
      `    benchmark: first page JS+CSS ${JSON.stringify(firstPage.resources)}, total ${firstPage.resources.reduce((s, r) => s + r.transferred, 0)} B; first contentful paint ${firstPage.firstContentfulPaintMs} ms after navigation; first live update ${seenAt - Date.parse(recorded.recordedAt)} ms after the auction was recorded`,
    );

    // The Account page: a webhook, signed by the demo account; then the account's next fill.
    const account = await open(`#/devnet/account/${demo.address}`);
    await account.getByText(/^Total surplus:/).waitFor();
    await account
      .getByLabel('Sign with')
      .selectOption({ label: `Devnet demo account #${DEMO_INDEX}` });
    await account.getByLabel('Webhook URL').fill(`${receiver.url}/hook`);
    await account.getByRole('button', { name: 'Sign and add' }).click();
    await account
      .getByText(/Added webhook subscription/)
      .waitFor()
      .catch(async (error: unknown) => {
        throw new Error(
          `${String(error)}; the page said: ${await account.locator('.problem').allInnerTexts()}`,
        );
      });
    const listSubscriptions = () =>
      http<{ verification: { status: string } }[]>(
        'GET',
        `${service.url}/accounts/${demo.address}/subscriptions`,
        undefined,
        { 'X-API-Key': API_KEY },
      );
    const verified = async () =>
      (await listSubscriptions()).body.some((s) => s.verification.status === 'verified');
    await waitFor(verified, {
      timeoutMs: 10_000,
      description: 'the webhook to answer its verification',
    });
    await account.getByRole('button', { name: 'Sign and list' }).click();
    await account
      .getByText(/verified/)
      .first()
      .waitFor();
    await account.screenshot({ path: `${SCREENSHOTS}/account.png`, fullPage: true });

    const second = await tradeThroughThePage(trade, '0.01');
    const noticeOf = (uid: string) =>
      receiver.requests
        .map(
          (r) =>
            JSON.parse(r.body.toString()) as { type?: string; metadata?: { orderId?: string } },
        )
        .find((n) => n.metadata?.orderId === uid);
    await waitFor(() => noticeOf(second) !== undefined, {
      timeoutMs: 30_000,
      description: `the notice of the second order at the webhook (got ${receiver.requests.map((r) => r.body.toString()).join(' | ')})`,
    });
    expect(noticeOf(second)!.type).to.be.oneOf(['order_filled', 'price_improvement']);

    // Removed, signed in the page again: the account lists none.
    await account.getByRole('button', { name: 'Sign and remove' }).click();
    await account.getByText('No subscription.').waitFor();
    expect((await listSubscriptions()).body).to.deep.equal([]);

    for (const page of [home, trade, order, account])
      expect(problemsOf(page), page.url()).to.deep.equal([]);
    for (const [page, name] of [
      [home, 'auctions'],
      [order, 'order'],
      [account, 'account'],
      [trade, 'trade'],
    ] as const) {
      await expectAccessible(page, name);
    }
  });

  it('cancels an open limit order from the Trade page with a signed cancellation, after which nothing trades it', async () => {
    const trade = await open('#/devnet/trade');
    // Far above the pools' price: the order waits, open.
    const uid = await tradeThroughThePage(trade, '0.1', { least: '1000000' });
    const status = trade.getByRole('region', { name: 'Your order' }).locator('[data-status]');
    await trade.locator('[data-status="open"]').waitFor({ timeout: 10_000 });
    await trade.getByRole('button', { name: 'Sign and cancel' }).click();
    await trade.locator('[data-status="cancelled"]').waitFor({ timeout: 10_000 });
    expect(await status.innerText()).to.equal('cancelled');
    await trade.screenshot({ path: `${SCREENSHOTS}/trade-cancelled.png`, fullPage: true });

    const order = await open(`#/devnet/order/${uid}`);
    await order.locator('li[data-event="OrderCancelled"]').waitFor();
    const events = await order
      .locator('ol.history li')
      .evaluateAll((items) => items.map((li) => li.getAttribute('data-event')));
    expect(events[0]).to.equal('OrderPlaced');
    expect(events).not.to.include('TradeSettled');
    // Auctions cut from the order book before it showed the cancellation (the read models follow
    // the ledger by milliseconds) may still close after it, holding the order: none trades it.
    const history = (await (
      await fetch(`${service.url}/devnet/api/v1/orders/${uid}/events`)
    ).json()) as { type: string; data: { solutions?: unknown[] } }[];
    expect(history.map((entry) => entry.type).slice(0, events.length)).to.deep.equal(events);
    const cancelled = history.findIndex((entry) => entry.type === 'OrderCancelled');
    for (const later of history.slice(cancelled + 1)) {
      expect(later.type).to.equal('AuctionClosed');
      expect(later.data.solutions).to.deep.equal([]);
    }
    for (const page of [trade, order]) expect(problemsOf(page), page.url()).to.deep.equal([]);
  });

  it('serves every page read-only on a network the server does not run live, and says so', async () => {
    const someone = newWallet().address.toLowerCase();
    const auctions = await open('#/sepolia/auctions');
    await auctions.getByText('No auction has been cut on this network yet.').waitFor();

    const trade = await open('#/sepolia/trade');
    await trade
      .getByRole('note')
      .getByText(/Sepolia is not live on this server/)
      .waitFor();
    expect(await trade.getByRole('button', { name: 'Get quote' }).isDisabled()).to.equal(true);
    await trade.screenshot({ path: `${SCREENSHOTS}/trade-read-only.png`, fullPage: true });

    const account = await open(`#/sepolia/account/${someone}`);
    await account.getByText(/^Total surplus:/).waitFor();

    const token = await open(`#/sepolia/token/0x${'11'.repeat(20)}`);
    await token.getByRole('alert').first().waitFor();

    const order = await open(`#/sepolia/order/0x${'ab'.repeat(56)}`);
    await order.getByRole('alert').getByText('NotFound').waitFor();

    for (const page of [auctions, trade, account, token, order]) {
      expect(problemsOf(page), page.url()).to.deep.equal([]);
    }
  });

  it('shows the Token page’s prices and holders, and fits a phone’s width', async () => {
    const weth = chain.deployment.weth.address.toLowerCase();
    const page = await open(`#/devnet/token/${weth}`, { width: 375, height: 800 });
    await page.getByText(/^\$[0-9]/).waitFor();
    await page.getByRole('region', { name: 'Top holders' }).getByRole('row').nth(1).waitFor();
    const overflow = await page.evaluate<number>(
      'document.documentElement.scrollWidth - window.innerWidth',
    );
    expect(overflow, 'horizontal overflow at 375 px').to.be.at.most(0);
    await page.screenshot({ path: `${SCREENSHOTS}/token-phone.png`, fullPage: true });
    await expectAccessible(page, 'token');
  });

  it('says what went wrong in the API’s words, and that a lost live connection is retried', async () => {
    const page = await open(`#/devnet/order/0x${'ab'.repeat(56)}`);
    // Keyboard: the first Tab reaches the skip link, which moves focus to the content.
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.textContent')).to.equal(
      'Skip to content',
    );
    await page.keyboard.press('Enter');
    expect(await page.evaluate<string>('document.activeElement.id')).to.equal('main');

    await page.getByRole('alert').getByText('NotFound').waitFor();
    expect(await page.getByRole('alert').innerText()).to.contain('Order was not found');

    await page.getByLabel('Search').fill('not a hash');
    await page.getByLabel('Search').press('Enter');
    await page.getByRole('alert').getByText('NotRecognised').waitFor();

    // The stream refused: the page says the connection is lost and when it retries.
    await page.route('**/api/v1/stream', (route) => route.abort());
    await page.goto(`${service.url}/#/mainnet/auctions`);
    await page
      .getByText(/Connection lost: retrying in \d+ s \(attempt 1\)/)
      .waitFor({ timeout: 10_000 });
    await page.getByText(/\(attempt 2\)/).waitFor({ timeout: 10_000 });
    await page.screenshot({ path: `${SCREENSHOTS}/connection-lost.png` });
    await page.unroute('**/api/v1/stream');
    await page.getByText(/^Live$/).waitFor({ timeout: 15_000 });
  });
});
