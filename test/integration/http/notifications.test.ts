/**
 * GET /accounts/{account}/notifications end to end, and the notices projector behind it.
 *
 * Orders are real signed orders placed (and some cancelled) through the API. The service's
 * autopilot cuts no auction here, so the tests play the autopilot and the chain indexer: they
 * append `AuctionClosed`, `TradeSettled`, on-chain `OrderCancelled` and reorg reverts to the
 * service's ledger, as those would, and the subscriptions API's `SubscriptionAdded` /
 * `SubscriptionRemoved`; then they wait for the notices projector to take them in. The auctions'
 * cut times are the ledger's clock for expiry, so the tests choose them.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { hexlify, randomBytes, type Wallet } from 'ethers';
import knex, { type Knex } from 'knex';
import { allProjectors } from '../../../projections/index.js';
import { replayInto } from '../../../projections/replay.js';
import {
  type Address,
  type AuctionClosedV5,
  type DeliveryChannel,
  type DomainEvent,
  type FilterReason,
  type Hex,
} from '../../../src/domain/events.js';
import { DEVNET_DEMO_TOKENS } from '../../../src/domain/networks.js';
import {
  describeOrder,
  noticeId,
  type Notice,
  type NoticeOrder,
} from '../../../src/domain/notices.js';
import { fundedWallet } from '../../support/owners.js';
import { documentedHttp } from '../../support/openapi.js';
import { http, startTestService, type TestService } from '../../support/service.js';
import {
  CHAIN_ID,
  presignOrder,
  signCancellations,
  signOrder,
  TOKENS,
  type OrderParams,
  type SignedOrder,
} from '../../support/signing.js';
import { appendEach } from '../../support/append-events.js';
import { waitFor } from '../../support/wait.js';

const NETWORK = 'devnet';
const WETH = TOKENS.WETH.toLowerCase() as Address;
const DAI = TOKENS.DAI.toLowerCase() as Address;
const DUSD = DEVNET_DEMO_TOKENS.DUSD;
const E18 = 10n ** 18n;
const NO_QUIET_AUCTIONS = {
  AUCTION_INTERVAL_MS: '3600000',
  AUCTION_VALIDITY_MARGIN_SECONDS: '86400',
};

type ErrorBody = { errorType: string; description: string };

const randomHash = (): Hex => hexlify(randomBytes(32)) as Hex;
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** What the notices know of a signed order. */
const noticeOrder = (signed: SignedOrder): NoticeOrder => ({
  network: NETWORK,
  uid: signed.uid,
  owner: signed.owner,
  sellToken: signed.order.sellToken.toLowerCase() as Address,
  buyToken: signed.order.buyToken.toLowerCase() as Address,
  sellAmount: BigInt(signed.order.sellAmount),
  buyAmount: BigInt(signed.order.buyAmount),
  kind: signed.order.kind,
});

describe('HTTP: account notifications', function () {
  this.timeout(180_000);
  let service: TestService;
  let db: Knex;

  before(async () => {
    service = await startTestService({
      env: { NOTIFICATIONS_API_KEY: 'test-key', ...NO_QUIET_AUCTIONS },
    });
    db = knex({ client: 'pg', connection: service.databaseUrl, pool: { min: 0, max: 2 } });
  });
  after(async () => {
    await db?.destroy();
    await service?.stop();
  });

  // ---- the ledger, as the autopilot, the indexer and the subscriptions API write it --------

  /** Appends events, each to its stream, and waits until the notices projector has them. */
  async function append(...events: DomainEvent[]): Promise<void> {
    const last = await appendEach(service.ledger, events);
    await caughtUp(last);
  }

  async function caughtUp(position: string): Promise<void> {
    await waitFor(
      async () => {
        const { rows } = await db.raw<{ rows: { position: string | null }[] }>(
          `SELECT position FROM read.projection_checkpoints WHERE projector = 'notices'`,
        );
        const at = rows[0]?.position ?? null;
        return at !== null && service.ledger.comparePositions(at, position) >= 0;
      },
      { description: 'the notices projector to catch up' },
    );
  }

  /** Everything appended so far, e.g. after an HTTP write. */
  async function settle(): Promise<void> {
    const all = await service.ledger.readAll(null, 1_000_000);
    if (all.length) await caughtUp(all[all.length - 1]!.position);
  }

  let lastAuctionId = 2_000_000;
  let lastBlock = 7_000;

  interface AuctionSpec {
    cutAt: number;
    orders?: SignedOrder[];
    filtered?: [SignedOrder, FilterReason][];
    network?: string;
  }

  async function closeAuction(spec: AuctionSpec): Promise<AuctionClosedV5> {
    const id = ++lastAuctionId;
    const block = ++lastBlock;
    const auction: AuctionClosedV5 = {
      network: spec.network ?? NETWORK,
      id,
      block,
      cutAt: iso(spec.cutAt),
      deadline: iso(spec.cutAt + 60),
      deadlineBlock: block + 5,
      base: null,
      left: [],
      unpriced: [],
      unfiltered: [],
      orders: (spec.orders ?? []).map((o) => ({ uid: o.uid, executed: '0' })),
      prices: {},
      filtered: (spec.filtered ?? []).map(([o, reason]) => ({ uid: o.uid, reason })),
      solutions: [],
    };
    await append({ type: 'AuctionClosed', data: auction });
    return auction;
  }

  let logIndex = 0;
  const chainAt = () => ({
    chainId: CHAIN_ID.devnet,
    blockNumber: ++lastBlock,
    blockHash: randomHash(),
    logIndex: ++logIndex,
    txHash: randomHash(),
  });

  const tradeOf = (
    order: SignedOrder,
    amounts: { sell: bigint; buy: bigint; fee?: bigint },
    settledAt: number,
  ) =>
    ({
      type: 'TradeSettled',
      data: {
        network: NETWORK,
        uid: order.uid,
        owner: order.owner,
        auctionId: null,
        sellToken: order.order.sellToken.toLowerCase() as Address,
        buyToken: order.order.buyToken.toLowerCase() as Address,
        sellAmount: amounts.sell.toString(),
        buyAmount: amounts.buy.toString(),
        feeAmount: (amounts.fee ?? 0n).toString(),
        settledAt: iso(settledAt),
        chain: chainAt(),
      },
    }) satisfies DomainEvent;

  const reverted = (fact: ReturnType<typeof tradeOf>): DomainEvent => ({
    type: 'ChainFactReverted',
    data: { network: NETWORK, revertedEventId: randomUUID(), reverted: fact, reason: 'reorg' },
  });

  const invalidated = (order: SignedOrder, at: number): DomainEvent => ({
    type: 'OrderCancelled',
    data: {
      network: NETWORK,
      uid: order.uid,
      source: 'chain',
      reason: 'invalidateOrder',
      cancelledAt: iso(at),
      by: order.owner,
      chain: chainAt(),
    },
  });

  const webhook = (n: string): DeliveryChannel => ({
    kind: 'webhook',
    url: `https://hooks.example.com/${n}`,
    secret: `secret-${n}`,
  });

  /** A webhook subscription, whose URL is sent `challenge` to answer. */
  const subscribed = (
    id: string,
    account: Address,
    channel: DeliveryChannel,
    challenge = 'c0'.repeat(32),
  ): DomainEvent => ({
    type: 'SubscriptionAdded',
    data: {
      id,
      account,
      channel,
      addedAt: new Date().toISOString(),
      authorisedBy: 'apiKey',
      signedDigest: null,
      verification: { method: 'webhookChallenge', challenge },
    },
  });

  /** The subscription's webhook answered its challenge. */
  const verified = (id: string, account: Address): DomainEvent => ({
    type: 'SubscriptionVerified',
    data: { id, account, method: 'webhookChallenge', verifiedAt: new Date().toISOString() },
  });

  const unsubscribed = (id: string, account: Address): DomainEvent => ({
    type: 'SubscriptionRemoved',
    data: {
      id,
      account,
      removedAt: new Date().toISOString(),
      authorisedBy: 'apiKey',
      signedDigest: null,
    },
  });

  // ---- orders and HTTP --------------------------------------------------------------------

  let distinct = 0;
  /**
   * A fresh partially fillable order of `wallet` placed through the API; by default selling
   * 2 WETH and a few atoms (even, so that half of it trades exactly at the limit price) for
   * 2000 DAI.
   */
  async function place(wallet: Wallet, overrides: Partial<OrderParams> = {}): Promise<SignedOrder> {
    const signed = await signOrder(wallet, CHAIN_ID.devnet, {
      sellAmount: String(2n * (E18 + BigInt(++distinct))),
      partiallyFillable: true,
      ...overrides,
    });
    const response = await documentedHttp('POST', `${service.devnet}/api/v1/orders`, signed.body);
    expect(response.status, response.text).to.equal(201);
    return signed;
  }

  const url = (account: string, base = service.url) => `${base}/accounts/${account}/notifications`;

  async function notices(account: string): Promise<Notice[]> {
    const response = await documentedHttp<Notice[]>('GET', url(account));
    expect(response.status, response.text).to.equal(200);
    expect(response.headers.get('cache-control')).to.equal('public, max-age=300');
    return response.body;
  }

  /** The account's notices of one order, oldest first. */
  async function noticesOf(order: SignedOrder): Promise<Notice[]> {
    return (await notices(order.owner)).filter((n) => n.metadata.orderId === order.uid).reverse();
  }

  const types = (list: readonly Notice[]) => list.map((n) => n.type);

  // ---- the endpoint -----------------------------------------------------------------------

  it('answers [] for an account without notices, cacheable for 300 s', async () => {
    const account = hexlify(randomBytes(20));
    expect(await notices(account)).to.deep.equal([]);
    // Checksummed, upper case and without 0x: addresses in any form, as the order book takes.
    expect(await notices(account.slice(2).toUpperCase())).to.deep.equal([]);
  });

  it('rejects a malformed address with 400 InvalidParameter', async () => {
    for (const bad of ['0x1234', 'not-an-address', `0x${'g'.repeat(40)}`, `0x${'1'.repeat(42)}`]) {
      const response = await documentedHttp<ErrorBody>('GET', url(bad));
      expect(response.status, bad).to.equal(400);
      expect(response.body.errorType, bad).to.equal('InvalidParameter');
      expect(response.body.description, bad).to.be.a('string').and.contain('account');
    }
  });

  it('lives outside the network prefix: /{network}/accounts/… is no route', async () => {
    const account = hexlify(randomBytes(20));
    // No route: nothing the document describes.
    const response = await http<ErrorBody>('GET', url(account, service.devnet));
    expect(response.status).to.equal(404);
    // And an order-book path still resolves its network.
    expect((await documentedHttp('GET', `${service.url}/accounts/api/v1/auction`)).status).to.equal(
      404,
    );
    expect((await documentedHttp('GET', `${service.devnet}/api/v1/version`)).status).to.equal(200);
  });

  // ---- the notices ------------------------------------------------------------------------

  it('notices partial fills, price improvement and the fill, with amounts in token units', async () => {
    const owner = await fundedWallet();
    const order = await place(owner, { buyToken: DUSD, buyAmount: String(2000n * E18) });
    const sell = BigInt(order.order.sellAmount);
    const half = sell / 2n;
    const t = nowSeconds();
    // Half of it at its limit price plus 5 DUSD; the rest exactly at the limit.
    const first = tradeOf(order, { sell: half, buy: 1000n * E18 + 5n * E18 }, t);
    const second = tradeOf(order, { sell: sell - half, buy: 1000n * E18 }, t + 12);
    await append(first, second);

    const list = await noticesOf(order);
    expect(types(list)).to.have.members([
      'order_partially_filled',
      'price_improvement',
      'order_filled',
    ]);
    const byType = new Map(list.map((n) => [n.type, n]));
    const partial = byType.get('order_partially_filled')!;
    const improved = byType.get('price_improvement')!;
    const filled = byType.get('order_filled')!;
    const described = describeOrder(noticeOrder(order));
    expect(described).to.match(/to sell 2\.\d+ WETH for at least 2000 DUSD on Local devnet/);

    const log = (e: typeof first) => [e.data.chain.blockHash, e.data.chain.logIndex] as const;
    expect(partial).to.deep.equal({
      id: noticeId('order_partially_filled', NETWORK, order.uid, ...log(first)),
      account: order.owner,
      type: 'order_partially_filled',
      message:
        `O${described.slice(1)} was partially filled: ${formatWeth(half)} WETH sold for ` +
        `1005 DUSD; ${formatWeth(half)} of ${formatWeth(sell)} WETH filled so far.`,
      timestamp: iso(t),
      metadata: { orderId: order.uid, executedAmount: half.toString(), network: NETWORK },
    });
    expect(improved).to.deep.equal({
      id: noticeId('price_improvement', NETWORK, order.uid, ...log(first)),
      account: order.owner,
      type: 'price_improvement',
      message: `O${described.slice(1)} got a better price: it received 5 DUSD more than its limit price asked.`,
      timestamp: iso(t),
      metadata: {
        orderId: order.uid,
        executedAmount: half.toString(),
        network: NETWORK,
        surplus: (5n * E18).toString(),
        surplusToken: DUSD,
      },
    });
    expect(filled).to.deep.equal({
      id: noticeId('order_filled', NETWORK, order.uid, ...log(second)),
      account: order.owner,
      type: 'order_filled',
      message: `O${described.slice(1)} was filled: ${formatWeth(sell)} WETH sold for 2005 DUSD in total.`,
      timestamp: iso(t + 12),
      metadata: { orderId: order.uid, executedAmount: sell.toString(), network: NETWORK },
    });

    // Filled, it is not noticed cancelled (nor expired later).
    await append(invalidated(order, t + 20));
    expect(await noticesOf(order)).to.have.length(3);
  });

  it('counts buy orders in buy atoms and shows unknown tokens in atoms with their address', async () => {
    const owner = await fundedWallet();
    const buyAmount = 3000n * E18;
    const order = await place(owner, {
      kind: 'buy',
      buyAmount: buyAmount.toString(),
      sellAmount: String(2n * E18 + BigInt(++distinct)),
    });
    const t = nowSeconds();
    // A third of it, at a price well inside the limit: 0.5 WETH for 1000 DAI.
    await append(tradeOf(order, { sell: E18 / 2n, buy: 1000n * E18 }, t));
    const list = await noticesOf(order);
    expect(types(list)).to.have.members(['order_partially_filled', 'price_improvement']);
    const partial = list.find((n) => n.type === 'order_partially_filled')!;
    expect(partial.metadata).to.deep.equal({
      orderId: order.uid,
      executedAmount: (1000n * E18).toString(),
      network: NETWORK,
    });
    expect(partial.message).to.contain(`to buy ${buyAmount} atoms of ${DAI} for at most`);
    expect(partial.message).to.contain(
      `${1000n * E18} of ${buyAmount} atoms of ${DAI} filled so far.`,
    );
    const improved = list.find((n) => n.type === 'price_improvement')!;
    // Limit: floor(1000e18 × sellAmount / 3000e18) WETH atoms; paid 0.5 WETH.
    const limit = (1000n * E18 * BigInt(order.order.sellAmount)) / buyAmount;
    expect(improved.metadata.surplus).to.equal((limit - E18 / 2n).toString());
    expect(improved.metadata.surplusToken).to.equal(WETH);
    expect(improved.message).to.match(/it paid 0\.1\d* WETH less than its limit price allowed\.$/);
  });

  it('notices the first cancellation only, by API or on chain', async () => {
    const owner = await fundedWallet();
    const order = await place(owner);
    const before = Date.now();
    const body = await signCancellations(owner, CHAIN_ID.devnet, [order.uid]);
    const response = await documentedHttp('DELETE', `${service.devnet}/api/v1/orders`, body);
    expect(response.status, response.text).to.equal(200);
    await settle();
    let list = await noticesOf(order);
    expect(types(list)).to.deep.equal(['order_cancelled']);
    const [cancelled] = list;
    expect(cancelled!.id).to.equal(noticeId('order_cancelled', NETWORK, order.uid));
    expect(cancelled!.message).to.match(/was cancelled by a signed cancellation\.$/);
    expect(cancelled!.metadata).to.deep.equal({ orderId: order.uid, network: NETWORK });
    const at = Date.parse(cancelled!.timestamp);
    expect(at).to.be.within(before - 1000, Date.now());
    // An on-chain invalidation afterwards is the same cancellation, not a second notice.
    await append(invalidated(order, nowSeconds()));
    list = await noticesOf(order);
    expect(types(list)).to.deep.equal(['order_cancelled']);

    const onChain = await place(owner);
    const t = nowSeconds() + 3;
    await append(invalidated(onChain, t));
    const [notice] = await noticesOf(onChain);
    expect(notice!.message).to.match(/was cancelled on chain\.$/);
    expect(notice!.timestamp).to.equal(iso(t));
  });

  it("expires an order at the first auction cut after its validTo (the ledger's clock), once", async () => {
    const owner = await fundedWallet();
    const validTo = nowSeconds() + 120;
    const order = await place(owner, { validTo });
    const partly = await place(owner, { validTo });
    await append(tradeOf(partly, { sell: E18 / 4n, buy: 1000n * E18 }, nowSeconds()));

    // Another network's auction is not this order's clock.
    await closeAuction({ network: 'mainnet', cutAt: validTo + 3600 });
    // Cut in the order's last valid second: still valid, as the API's status says.
    await closeAuction({ cutAt: validTo, orders: [order] });
    expect(types(await noticesOf(order))).to.deep.equal([]);

    const expiring = await closeAuction({ cutAt: validTo + 1 });
    const [expired] = await noticesOf(order);
    expect(expired).to.deep.equal({
      id: noticeId('order_expired', NETWORK, order.uid),
      account: order.owner,
      type: 'order_expired',
      message: `O${describeOrder(noticeOrder(order)).slice(1)} expired without being filled.`,
      timestamp: iso(validTo + 1),
      metadata: { orderId: order.uid, network: NETWORK, auctionId: expiring.id },
    });
    const partial = (await noticesOf(partly)).find((n) => n.type === 'order_expired')!;
    expect(partial.message).to.match(/expired with 0\.25 of 2\.\d+ WETH filled\.$/);

    // Later auctions notice nothing more.
    await closeAuction({ cutAt: validTo + 60 });
    expect(types(await noticesOf(order))).to.deep.equal(['order_expired']);
  });

  it('tells the account a pre-signed order names nothing until the pre-signature is on chain', async () => {
    // Anyone may place a pre-signed order naming any account: no signature is checked.
    const victim = hexlify(randomBytes(20));
    const validTo = nowSeconds() + 120;
    const [unsigned, signed] = await Promise.all(
      [1, 2].map(async (n) => {
        const order = presignOrder(victim, CHAIN_ID.devnet, {
          validTo,
          sellAmount: String(E18 + BigInt(++distinct) + BigInt(n)),
        });
        const response = await documentedHttp(
          'POST',
          `${service.devnet}/api/v1/orders`,
          order.body,
        );
        expect(response.status, response.text).to.equal(201);
        return order;
      }),
    );
    // Only the owner can set the pre-signature (the settlement contract checks the sender).
    await append({
      type: 'PreSignatureSet',
      data: {
        network: NETWORK,
        uid: signed!.uid,
        owner: signed!.owner,
        signed: true,
        chain: chainAt(),
      },
    });
    await closeAuction({ cutAt: validTo + 1 });
    const told = await notices(victim);
    expect(told.map((n) => [n.type, n.metadata.orderId])).to.deep.equal([
      ['order_expired', signed!.uid],
    ]);
    expect(told.map((n) => n.metadata.orderId)).not.to.include(unsigned!.uid);
  });

  it('notices insufficient balance once per episode', async () => {
    const owner = await fundedWallet();
    const order = await place(owner);
    const t = nowSeconds();
    const first = await closeAuction({ cutAt: t, filtered: [[order, 'InsufficientBalance']] });
    await closeAuction({ cutAt: t + 1, filtered: [[order, 'InsufficientBalance']] });
    // Another reason is no balance notice.
    await closeAuction({ cutAt: t + 2, filtered: [[order, 'MissingNativePrice']] });
    let list = await noticesOf(order);
    expect(types(list)).to.deep.equal(['insufficient_balance']);
    expect(list[0]).to.deep.equal({
      id: noticeId('insufficient_balance', NETWORK, order.uid, first.id),
      account: order.owner,
      type: 'insufficient_balance',
      message:
        `O${describeOrder(noticeOrder(order)).slice(1)} was left out of an auction: the ` +
        `balance of WETH in ${order.owner} is too low. It takes part again once the balance ` +
        'covers it.',
      timestamp: iso(t),
      metadata: { orderId: order.uid, network: NETWORK, auctionId: first.id },
    });

    // Held by an auction: the episode is over, and the next shortage is noticed again.
    await closeAuction({ cutAt: t + 3, orders: [order] });
    const second = await closeAuction({ cutAt: t + 4, filtered: [[order, 'InsufficientBalance']] });
    list = await noticesOf(order);
    expect(types(list)).to.deep.equal(['insufficient_balance', 'insufficient_balance']);
    expect(list[1]!.id).to.equal(noticeId('insufficient_balance', NETWORK, order.uid, second.id));
    expect(list[1]!.timestamp).to.equal(iso(t + 4));
  });

  it('keeps notices across a reorg, whose revert only corrects the amounts', async () => {
    const owner = await fundedWallet();
    const order = await place(owner);
    const sell = BigInt(order.order.sellAmount);
    const t = nowSeconds();
    // At the limit price exactly: no price improvement.
    const fill = tradeOf(order, { sell, buy: 2000n * E18 }, t);
    await append(fill);
    expect(types(await noticesOf(order))).to.deep.equal(['order_filled']);

    // The block is gone: the fill notice stays, the order is open again.
    await append(reverted(fill));
    expect(types(await noticesOf(order))).to.deep.equal(['order_filled']);
    // The new chain fills half of it: a partial fill of half, not of one and a half.
    await append(tradeOf(order, { sell: sell / 2n, buy: 1000n * E18 }, t + 30));
    const list = await noticesOf(order);
    expect(types(list)).to.deep.equal(['order_filled', 'order_partially_filled']);
    expect(list[1]!.metadata.executedAmount).to.equal((sell / 2n).toString());
    // Open again, it can be cancelled and is noticed so.
    await append(invalidated(order, t + 40));
    expect(types(await noticesOf(order))).to.deep.equal([
      'order_filled',
      'order_partially_filled',
      'order_cancelled',
    ]);
  });

  it('lists newest first: by timestamp, then by id', async () => {
    const owner = await fundedWallet();
    const a = await place(owner);
    const b = await place(owner);
    const t = nowSeconds();
    await append(
      tradeOf(a, { sell: E18 / 2n, buy: 1000n * E18 }, t + 50),
      invalidated(b, t + 10),
      tradeOf(b, { sell: 1n, buy: 1n }, t + 50),
    );
    const list = await notices(owner.address);
    expect(list.length).to.be.greaterThanOrEqual(3);
    const sorted = [...list].sort(
      (x, y) => Date.parse(y.timestamp) - Date.parse(x.timestamp) || (y.id < x.id ? -1 : 1),
    );
    expect(list).to.deep.equal(sorted);
    expect(list.at(-1)!.type).to.equal('order_cancelled');
    for (const n of list) expect(n.account).to.equal(owner.address.toLowerCase());
  });

  // ---- delivery ---------------------------------------------------------------------------

  interface OutboxRow {
    notice_id: string;
    subscription_id: string;
    account: string;
    channel: DeliveryChannel;
    notice: Notice;
  }

  /** The account's queued notices (its verification requests aside). */
  async function outboxOf(account: string): Promise<OutboxRow[]> {
    const { rows } = await db.raw<{ rows: OutboxRow[] }>(
      `SELECT notice_id, subscription_id, account, channel, notice FROM delivery.outbox
       WHERE account = ? AND notice IS NOT NULL ORDER BY notice_id, subscription_id`,
      [account],
    );
    return rows;
  }

  it('queues each new notice for the subscriptions active and verified when it was made', async () => {
    const owner = await fundedWallet();
    const account = owner.address.toLowerCase() as Address;
    const order = await place(owner);
    const [early, late, unproven] = [randomUUID(), randomUUID(), randomUUID()];
    const t = nowSeconds();

    await append(
      subscribed(early, account, webhook('early')),
      verified(early, account),
      // Its URL never answers the challenge: it is sent nothing else.
      subscribed(unproven, account, webhook('unproven'), 'ee'.repeat(32)),
    );
    // Half of it at the limit price: one notice.
    const sell = BigInt(order.order.sellAmount);
    await append(tradeOf(order, { sell: sell / 2n, buy: 1000n * E18 }, t));
    const [firstNotice, ...others] = await noticesOf(order);
    expect(firstNotice!.type).to.equal('order_partially_filled');
    expect(others).to.deep.equal([]);
    await append(
      subscribed(late, account, webhook('late')),
      verified(late, account),
      unsubscribed(early, account),
    );
    // Another account cannot remove this one's subscription.
    await append(unsubscribed(late, hexlify(randomBytes(20)) as Address));
    await append(invalidated(order, t + 5));
    const [, cancelled] = await noticesOf(order);
    expect(cancelled!.type).to.equal('order_cancelled');

    const rows = await outboxOf(account);
    const expected: OutboxRow[] = [
      {
        notice_id: firstNotice!.id,
        subscription_id: early,
        account,
        channel: webhook('early'),
        notice: firstNotice!,
      },
      {
        notice_id: cancelled!.id,
        subscription_id: late,
        account,
        channel: webhook('late'),
        notice: cancelled!,
      },
    ];
    const key = (r: OutboxRow) => `${r.notice_id}/${r.subscription_id}`;
    expect(rows).to.deep.equal(expected.sort((x, y) => (key(x) < key(y) ? -1 : 1)));
    // Each URL was sent its challenge; the one that never answered, nothing more.
    const { rows: requests } = await db.raw<{
      rows: { subscription_id: string; challenge: string }[];
    }>(
      `SELECT subscription_id, verification->>'challenge' AS challenge FROM delivery.outbox
       WHERE account = ? AND verification IS NOT NULL ORDER BY verification->>'challenge'`,
      [account],
    );
    expect(requests.map((r) => r.subscription_id).sort()).to.deep.equal(
      [early, late, unproven].sort(),
    );
    expect(requests.find((r) => r.subscription_id === unproven)!.challenge).to.equal(
      'ee'.repeat(32),
    );

    // The subscriptions table, as the subscriptions API reads it.
    const { rows: subscriptions } = await db.raw<{
      rows: { id: string; channel: DeliveryChannel; active: boolean; verified: boolean }[];
    }>(
      `SELECT id, channel, removed_at IS NULL AS active, verified_at IS NOT NULL AS verified
       FROM read.subscriptions WHERE account = ? ORDER BY channel->>'url'`,
      [account],
    );
    expect(subscriptions).to.deep.equal([
      { id: early, channel: webhook('early'), active: false, verified: true },
      { id: late, channel: webhook('late'), active: true, verified: true },
      { id: unproven, channel: webhook('unproven'), active: true, verified: false },
    ]);
  });

  it('replays into the same notices with the same ids, and queues nothing twice', async () => {
    const tables = ['notices', 'notice_orders', 'notice_presignatures', 'subscriptions'];
    const contents = async (schema: string, table: string) =>
      (
        await db.raw<{ rows: { row: string }[] }>(
          `SELECT row_to_json(t)::text AS row FROM "${schema}"."${table}" t ORDER BY 1`,
        )
      ).rows.map((r) => r.row);
    // What was queued, not how its delivery goes: the service's worker is trying these meanwhile.
    const queued = async () =>
      (
        await db.raw<{ rows: { row: string }[] }>(
          `SELECT row_to_json(t)::text AS row FROM (SELECT notice_id, subscription_id, account,
             channel, notice, created_at FROM delivery.outbox) t ORDER BY 1`,
        )
      ).rows.map((r) => r.row);
    const outboxBefore = await queued();
    expect(outboxBefore.length).to.be.greaterThan(0);
    await settle();
    try {
      await replayInto({
        ledger: service.ledger,
        db,
        projectors: allProjectors().filter((p) => p.name === 'notices'),
        schema: 'notices_replay',
        batchSize: 7,
      });
      for (const table of tables) {
        expect(await contents('notices_replay', table), table).to.deep.equal(
          await contents('read', table),
        );
      }
      expect(await queued()).to.deep.equal(outboxBefore);
    } finally {
      await db.raw('DROP SCHEMA IF EXISTS notices_replay CASCADE');
    }
  });

  it('answers 500 when the database fails', async () => {
    await db.raw('ALTER TABLE read.notices RENAME TO notices_elsewhere');
    try {
      const response = await documentedHttp<ErrorBody>('GET', url(hexlify(randomBytes(20))));
      expect(response.status).to.equal(500);
      expect(response.body.errorType).to.equal('InternalServerError');
    } finally {
      await db.raw('ALTER TABLE read.notices_elsewhere RENAME TO notices');
    }
    expect(await notices(hexlify(randomBytes(20)))).to.deep.equal([]);
  });

  describe('without the notifications integration', () => {
    for (const [what, env] of [
      ['disabled', { NOTIFICATIONS_ENABLED: 'false', NOTIFICATIONS_API_KEY: 'test-key' }],
      ['without an API key', {}],
    ] as const) {
      it(`answers 503 NotificationsDisabled when ${what}`, async () => {
        const other = await startTestService({ env: { ...env, ...NO_QUIET_AUCTIONS } });
        try {
          for (const account of [hexlify(randomBytes(20)), 'not-an-address']) {
            const response = await documentedHttp<ErrorBody>('GET', url(account, other.url));
            expect(response.status).to.equal(503);
            expect(response.body.errorType).to.equal('NotificationsDisabled');
            expect(response.body.description).to.be.a('string').and.not.equal('');
          }
        } finally {
          await other.stop();
        }
      });
    }
  });
});

/** WETH atoms as the messages show them. */
function formatWeth(atoms: bigint): string {
  const whole = atoms / E18;
  const fraction = (atoms % E18).toString().padStart(18, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}
