/**
 * Rate limits over HTTP: on POST /api/v1/orders per caller IP (behind a trusted proxy, the
 * X-Forwarded-For entry it appended), never per the body's unauthenticated `from`; on every
 * other write endpoint too, and on new subscriptions per hour whichever accounts they name; a
 * refused request is a 429 RateLimited with Retry-After and does no work; the budget comes back
 * with time (the service's controlled clock, no sleeping). The in-process store's own refill and
 * memory bound are checked directly below.
 */
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { createMemoryRateLimitStore } from '../../../src/http/rate-limit-store.js';
import { servedOperations } from '../../support/operations.js';
import { fundedWallet } from '../../support/owners.js';
import { controlledClock, http, suiteTestService, type HttpResult } from '../../support/service.js';
import { CHAIN_ID, newWallet, signOrder } from '../../support/signing.js';

type ErrorBody = { errorType: string; description: string };

function expectLimited(response: HttpResult<unknown>): number {
  expect(response.status, response.text).to.equal(429);
  expect(response.body).to.deep.equal({
    errorType: 'RateLimited',
    description: (response.body as ErrorBody).description,
  });
  const retryAfter = response.headers.get('retry-after') ?? '';
  expect(retryAfter).to.match(/^[1-9]\d*$/);
  return Number(retryAfter);
}

describe('HTTP: rate limits behind one trusted proxy', () => {
  const clock = controlledClock();
  const service = suiteTestService({
    env: {
      RATE_LIMIT_ORDERS_PER_SECOND: '2',
      RATE_LIMIT_PRICES_PER_SECOND: '2',
      TRUSTED_PROXIES: '1',
    },
    clock,
  });

  /**
   * An order submission (usually an invalid body: a 400 still spends the budget) from `ip`, as
   * the proxy reports it: the last X-Forwarded-For entry, after whatever the client wrote.
   */
  function submit(body: unknown, ip = '192.0.2.1', network = 'devnet', forged?: string) {
    const forwarded = forged === undefined ? ip : `${forged}, ${ip}`;
    return http<unknown>('POST', `${service().url}/${network}/api/v1/orders`, body, {
      'x-forwarded-for': forwarded,
    });
  }

  it('refuses one caller past the burst while another caller is served', async () => {
    const ip = '198.51.100.1';
    expect((await submit({}, ip)).status).to.equal(400);
    expect((await submit({ from: '0x1234' }, ip)).status).to.equal(400);
    expectLimited(await submit({ from: null }, ip));
    // Naming another owner, or writing another address before the proxy's, changes nothing.
    expectLimited(await submit({ from: newWallet().address }, ip));
    expectLimited(await submit({}, ip, 'devnet', '203.0.113.9'));

    expect((await submit({}, '198.51.100.2')).status).to.equal(400);
  });

  it("does not let a caller spend an owner's budget by naming it in `from`", async () => {
    const victim = await fundedWallet();
    const attacker = '192.0.2.66';
    for (let i = 0; i < 2; i++) {
      expect((await submit({ from: victim.address }, attacker)).status).to.equal(400);
    }
    expectLimited(await submit({ from: victim.address }, attacker));

    const signed = await signOrder(victim, CHAIN_ID.devnet, {}, 'eip712', {
      nowSeconds: clock.nowSeconds(),
    });
    const placed = await submit(signed.body, '192.0.2.77');
    expect(placed.status, placed.text).to.equal(201);
  });

  it('counts an IPv6 caller by its /64, and an IPv4-mapped address as the IPv4 one', async () => {
    // One subscriber's /64 holds 2^64 addresses: each its own budget would be no limit at all.
    expect((await submit({}, '2001:db8:1:2::1')).status).to.equal(400);
    expect((await submit({}, '2001:db8:1:2:ffff:ffff:ffff:fffe')).status).to.equal(400);
    expectLimited(await submit({}, '2001:DB8:1:2:0:0:0:9'));
    expect((await submit({}, '2001:db8:1:3::1')).status).to.equal(400);

    expect((await submit({}, '::ffff:203.0.113.7')).status).to.equal(400);
    expect((await submit({}, '::FFFF:cb00:7107')).status).to.equal(400);
    expectLimited(await submit({}, '203.0.113.7'));
    expect((await submit({}, '203.0.113.8')).status).to.equal(400);
  });

  it('limits price reads per caller, native_price and usdPrice together, each in its shape', async () => {
    const token = newWallet().address;
    const read = (route: 'native_price' | 'usdPrice', ip: string) =>
      http<unknown>(
        'GET',
        route === 'native_price'
          ? `${service().devnet}/api/v1/token/${token}/native_price`
          : `${service().url}/devnet/tokens/${token}/usdPrice`,
        undefined,
        { 'x-forwarded-for': ip },
      );
    const ip = '192.0.2.50';
    expect((await read('native_price', ip)).status).to.equal(404);
    expect((await read('usdPrice', ip)).status).to.equal(404);
    expectLimited(await read('native_price', ip));
    const refused = await read('usdPrice', ip);
    expect(refused.status, refused.text).to.equal(429);
    expect(refused.body).to.have.all.keys('message');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).to.be.at.least(1);

    expect((await read('usdPrice', '192.0.2.51')).status).to.equal(404);
    clock.advance(retryAfter);
    expect((await read('native_price', ip)).status).to.equal(404);
  });

  it('counts one budget per caller across networks', async () => {
    const ip = '192.0.2.40';
    expect((await submit({}, ip, 'devnet')).status).to.equal(400);
    expect((await submit({}, ip, 'mainnet')).status).to.equal(400);
    expectLimited(await submit({}, ip, 'mainnet'));
    expectLimited(await submit({}, ip, 'devnet'));
  });

  it('writes nothing for a refused order and serves the caller again after Retry-After', async () => {
    const wallet = await fundedWallet();
    const signed = await signOrder(wallet, CHAIN_ID.devnet, {}, 'eip712', {
      nowSeconds: clock.nowSeconds(),
    });
    expect((await submit({})).status).to.equal(400);
    expect((await submit({})).status).to.equal(400);

    const before = (await service().ledger.readAll(null, 10_000)).length;
    const retryAfter = expectLimited(await submit(signed.body));
    expect((await service().ledger.readAll(null, 10_000)).length, 'ledger grew').to.equal(before);
    const read = await http('GET', `${service().devnet}/api/v1/orders/${signed.uid}`);
    expect(read.status).to.equal(404);

    clock.advance(retryAfter);
    const placed = await submit(signed.body);
    expect(placed.status, placed.text).to.equal(201);
    expect(placed.body).to.equal(signed.uid);
  });
});

describe('HTTP: rate limits on every write', () => {
  const API_KEY = 'rate-limits-key';
  const clock = controlledClock();
  const service = suiteTestService({
    env: {
      RATE_LIMIT_ORDERS_PER_SECOND: '1',
      RATE_LIMIT_QUOTES_PER_SECOND: '1',
      RATE_LIMIT_APP_DATA_PER_SECOND: '1',
      RATE_LIMIT_CANCELS_PER_SECOND: '1',
      RATE_LIMIT_CHANNELS_PER_SECOND: '1',
      RATE_LIMIT_CHANNELS_PER_HOUR: '3',
      NOTIFICATIONS_API_KEY: API_KEY,
      TRUSTED_PROXIES: '1',
    },
    clock,
  });

  const ledgerLength = async () => (await service().ledger.readAll(null, 100_000)).length;

  it('refuses a caller its second write within its budget on every write endpoint, an IPv6 one by its /64', async () => {
    // Reads that take a body are no writes.
    const writes = servedOperations(API_KEY).filter(
      (op) => op.method !== 'get' && `${op.method} ${op.path}` !== 'post /api/v1/orders/by_uids',
    );
    expect(writes.length).to.be.at.least(8);
    for (const [i, op] of writes.entries()) {
      const path = op.path.replace(/\{[^}]+\}/g, `0x${'12'.repeat(20)}`);
      const url = `${service().url}${op.mount === 'network' ? '/devnet' : ''}${path}`;
      // Two addresses of one subscriber's /64.
      const send = (host: number) =>
        http(
          op.method.toUpperCase(),
          url,
          {},
          {
            'x-forwarded-for': `2001:db8:${i}:1::${host}`,
            'x-api-key': API_KEY,
          },
        );
      const label = `${op.method} ${op.path}`;
      expect((await send(1)).status, label).not.to.equal(429);
      const before = await ledgerLength();
      expect(expectLimited(await send(2)), label).to.equal(1);
      expect(await ledgerLength(), `${label} wrote`).to.equal(before);
    }
  });

  it('counts new subscriptions per caller per hour, whichever accounts they name', async () => {
    const subscribe = (ip: string) =>
      http(
        'POST',
        `${service().url}/accounts/${newWallet().address}/subscriptions`,
        { channel: { kind: 'webhook', url: 'https://hooks.example.org/batchbook' } },
        { 'x-forwarded-for': ip, 'x-api-key': API_KEY },
      );
    const ip = '203.0.113.30';
    for (let i = 0; i < 3; i++) {
      const added = await subscribe(ip);
      expect(added.status, added.text).to.equal(201);
      // A second later the per-second budget is back, the hourly one not.
      clock.advance(1);
    }
    const before = await ledgerLength();
    const retryAfter = expectLimited(await subscribe(ip));
    // Three an hour: one comes back every 20 minutes.
    expect(retryAfter).to.be.within(1190, 1200);
    expect(await ledgerLength(), 'ledger grew').to.equal(before);
    expect((await subscribe('203.0.113.31')).status).to.equal(201);
    clock.advance(retryAfter);
    expect((await subscribe(ip)).status).to.equal(201);
  });
});

describe('HTTP: rate limits with no proxy trusted', () => {
  const service = suiteTestService({ env: { RATE_LIMIT_ORDERS_PER_SECOND: '1' } });

  it('ignores X-Forwarded-For: a forged address gets no budget of its own', async () => {
    const submit = (forged: string) =>
      http<unknown>('POST', `${service().devnet}/api/v1/orders`, {}, { 'x-forwarded-for': forged });
    expect((await submit('192.0.2.1')).status).to.equal(400);
    expectLimited(await submit('192.0.2.2'));
  });
});

describe('rate limits: in-process store', () => {
  const limit = { perSecond: 2, burst: 2 };

  it('refills at the rate up to the burst, with the wait until the next token', async () => {
    let nowMs = 1_000_000;
    const store = createMemoryRateLimitStore({ clock: () => new Date(nowMs) });
    expect(await store.take('a', limit)).to.deep.equal({ allowed: true, retryAfterMs: 0 });
    expect(await store.take('a', limit)).to.deep.equal({ allowed: true, retryAfterMs: 0 });
    expect(await store.take('a', limit)).to.deep.equal({ allowed: false, retryAfterMs: 500 });
    nowMs += 200;
    expect(await store.take('a', limit)).to.deep.equal({ allowed: false, retryAfterMs: 300 });
    nowMs += 300;
    expect((await store.take('a', limit)).allowed).to.equal(true);
    // Idle for long, the bucket holds the burst and no more.
    nowMs += 60_000;
    expect((await store.take('a', limit)).allowed).to.equal(true);
    expect((await store.take('a', limit)).allowed).to.equal(true);
    expect((await store.take('a', limit)).allowed).to.equal(false);
    // A clock stepping back does not drain or refill.
    nowMs -= 10_000;
    expect((await store.take('a', limit)).allowed).to.equal(false);
    await store.close();
  });

  it('forgets the least recently used clients past maxKeys (memory stays bounded)', async () => {
    const store = createMemoryRateLimitStore({ clock: () => new Date(0), maxKeys: 2 });
    const one = { perSecond: 1, burst: 1 };
    expect((await store.take('a', one)).allowed).to.equal(true);
    expect((await store.take('a', one)).allowed).to.equal(false);
    await store.take('b', one);
    expect((await store.take('a', one)).allowed, 'a still tracked').to.equal(false);
    await store.take('c', one);
    await store.take('d', one);
    expect((await store.take('a', one)).allowed, 'a evicted').to.equal(true);
    await store.close();
  });
});

describe('rate limits: configuration', () => {
  it('defaults to 10 quotes, 5 orders, 10 price reads, 5 app-data registrations, 5 cancellations and 2 subscription changes per second per client, 20 new subscriptions per hour, counted in process, no proxy', () => {
    const config = loadConfig({});
    expect(config.rateLimits).to.deep.equal({
      quotesPerSecond: 10,
      ordersPerSecond: 5,
      pricesPerSecond: 10,
      appDataPerSecond: 5,
      cancellationsPerSecond: 5,
      subscriptionChangesPerSecond: 2,
      subscriptionsPerHour: 20,
    });
    expect(config.unknownTokenCacheSeconds).to.equal(300);
    expect(config.redisUrl).to.equal(null);
    expect(config.trustedProxies).to.equal(0);
    expect(loadConfig({ TRUSTED_PROXIES: '2' }).trustedProxies).to.equal(2);
  });

  it('takes 0 to disable a limit and a redis: or rediss: URL', () => {
    const config = loadConfig({
      RATE_LIMIT_QUOTES_PER_SECOND: '0',
      RATE_LIMIT_ORDERS_PER_SECOND: '20',
      RATE_LIMIT_PRICES_PER_SECOND: '0',
      RATE_LIMIT_APP_DATA_PER_SECOND: '0',
      RATE_LIMIT_CANCELS_PER_SECOND: '3',
      RATE_LIMIT_CHANNELS_PER_SECOND: '0',
      RATE_LIMIT_CHANNELS_PER_HOUR: '100',
      UNKNOWN_TOKEN_CACHE_SECONDS: '0',
      REDIS_URL: 'rediss://user:secret@cache.internal:6380/2',
    });
    expect(config.rateLimits).to.deep.equal({
      quotesPerSecond: 0,
      ordersPerSecond: 20,
      pricesPerSecond: 0,
      appDataPerSecond: 0,
      cancellationsPerSecond: 3,
      subscriptionChangesPerSecond: 0,
      subscriptionsPerHour: 100,
    });
    expect(config.unknownTokenCacheSeconds).to.equal(0);
    expect(config.redisUrl).to.equal('rediss://user:secret@cache.internal:6380/2');
  });

  it('stops start-up on a bad value, naming the variable', () => {
    for (const [name, value] of [
      ['RATE_LIMIT_ORDERS_PER_SECOND', '2.5'],
      ['RATE_LIMIT_QUOTES_PER_SECOND', '-1'],
      ['RATE_LIMIT_PRICES_PER_SECOND', 'many'],
      ['RATE_LIMIT_APP_DATA_PER_SECOND', '-1'],
      ['RATE_LIMIT_CANCELS_PER_SECOND', '0.5'],
      ['RATE_LIMIT_CHANNELS_PER_SECOND', 'x'],
      ['RATE_LIMIT_CHANNELS_PER_HOUR', '1e3'],
      ['UNKNOWN_TOKEN_CACHE_SECONDS', '86401'],
      ['REDIS_URL', 'http://cache:6379'],
      ['REDIS_URL', 'not a url'],
      ['TRUSTED_PROXIES', '-1'],
      ['TRUSTED_PROXIES', 'yes'],
    ] as const) {
      expect(() => loadConfig({ [name]: value }), `${name}=${value}`)
        .to.throw(ConfigError)
        .with.property('message')
        .that.includes(name);
    }
  });
});
