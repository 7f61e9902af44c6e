/**
 * Rate limits on POST /api/v1/orders over HTTP: per owner where the body names one, else per IP;
 * a refused request is a 429 RateLimited with Retry-After and does no work; the budget comes
 * back with time (the service's controlled clock, no sleeping). The in-process store's own
 * refill and memory bound are checked directly below.
 */
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { createMemoryRateLimitStore } from '../../../src/http/rate-limit-store.js';
import { fundedWallet } from '../../support/owners.js';
import {
  controlledClock,
  http,
  startTestService,
  type HttpResult,
  type TestService,
} from '../../support/service.js';
import { CHAIN_ID, newWallet, signOrder } from '../../support/signing.js';

type ErrorBody = { errorType: string; description: string };

describe('HTTP: rate limits', () => {
  const clock = controlledClock();
  let service: TestService;
  before(async () => {
    service = await startTestService({
      env: { RATE_LIMIT_ORDERS_PER_SECOND: '2' },
      clock: clock.now,
    });
  });
  after(() => service.stop());

  /** An order submission (usually an invalid body: a 400 still spends the budget). */
  function submit(body: unknown, ip = '192.0.2.1', network = 'devnet') {
    return http<unknown>('POST', `${service.url}/${network}/api/v1/orders`, body, {
      'x-forwarded-for': ip,
    });
  }

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

  it('refuses one owner past the burst while another owner and another IP are served', async () => {
    const owner = newWallet().address;
    // The owner is the address in any letter case: both forms spend one budget.
    expect((await submit({ from: owner })).status).to.equal(400);
    expect((await submit({ from: owner.toLowerCase() })).status).to.equal(400);
    expectLimited(await submit({ from: owner }));
    // The same owner from another IP is still the same client.
    expectLimited(await submit({ from: owner }, '192.0.2.2'));

    expect((await submit({ from: newWallet().address })).status).to.equal(400);
    expect((await submit({}, '192.0.2.3')).status).to.equal(400);
  });

  it('limits requests without a valid owner by IP', async () => {
    const ip = '198.51.100.1';
    expect((await submit({}, ip)).status).to.equal(400);
    expect((await submit({ from: '0x1234' }, ip)).status).to.equal(400);
    expectLimited(await submit({ from: null }, ip));

    expect((await submit({}, '198.51.100.2')).status).to.equal(400);
    // A named owner is counted on its own budget, not its IP's.
    expect((await submit({ from: newWallet().address }, ip)).status).to.equal(400);
  });

  it('counts one budget per client across networks', async () => {
    const owner = newWallet().address;
    expect((await submit({ from: owner }, undefined, 'devnet')).status).to.equal(400);
    expect((await submit({ from: owner }, undefined, 'mainnet')).status).to.equal(400);
    expectLimited(await submit({ from: owner }, undefined, 'mainnet'));
    expectLimited(await submit({ from: owner }, undefined, 'devnet'));
  });

  it('writes nothing for a refused order and serves the client again after Retry-After', async () => {
    const wallet = await fundedWallet();
    const signed = await signOrder(wallet, CHAIN_ID.devnet, {}, 'eip712', {
      nowSeconds: clock.nowSeconds(),
    });
    expect((await submit({ from: wallet.address })).status).to.equal(400);
    expect((await submit({ from: wallet.address })).status).to.equal(400);

    const before = (await service.ledger.readAll(null, 10_000)).length;
    const retryAfter = expectLimited(await submit(signed.body));
    expect((await service.ledger.readAll(null, 10_000)).length, 'ledger grew').to.equal(before);
    const read = await http('GET', `${service.devnet}/api/v1/orders/${signed.uid}`);
    expect(read.status).to.equal(404);

    clock.advance(retryAfter);
    const placed = await submit(signed.body);
    expect(placed.status, placed.text).to.equal(201);
    expect(placed.body).to.equal(signed.uid);
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
  it('defaults to 10 quotes and 5 orders per second per client, counted in process', () => {
    const config = loadConfig({});
    expect(config.rateLimits).to.deep.equal({ quotesPerSecond: 10, ordersPerSecond: 5 });
    expect(config.redisUrl).to.equal(null);
  });

  it('takes 0 to disable a limit and a redis: or rediss: URL', () => {
    const config = loadConfig({
      RATE_LIMIT_QUOTES_PER_SECOND: '0',
      RATE_LIMIT_ORDERS_PER_SECOND: '20',
      REDIS_URL: 'rediss://user:secret@cache.internal:6380/2',
    });
    expect(config.rateLimits).to.deep.equal({ quotesPerSecond: 0, ordersPerSecond: 20 });
    expect(config.redisUrl).to.equal('rediss://user:secret@cache.internal:6380/2');
  });

  it('stops start-up on a bad value, naming the variable', () => {
    for (const [name, value] of [
      ['RATE_LIMIT_ORDERS_PER_SECOND', '2.5'],
      ['RATE_LIMIT_QUOTES_PER_SECOND', '-1'],
      ['REDIS_URL', 'http://cache:6379'],
      ['REDIS_URL', 'not a url'],
    ] as const) {
      expect(() => loadConfig({ [name]: value }), `${name}=${value}`)
        .to.throw(ConfigError)
        .with.property('message')
        .that.includes(name);
    }
  });
});
