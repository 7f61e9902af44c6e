/**
 * The rate-limit stores' shared semantics, in process and against a real redis-server that this
 * suite launches (found on PATH; `.ci/run` installs Debian's redis-server). Two Redis stores
 * stand for two service instances: they spend one budget. Without redis-server the Redis part is
 * reported as skipped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createRedisRateLimitStore } from '../../../src/http/rate-limit-redis.js';
import {
  createMemoryRateLimitStore,
  type RateLimitStore,
} from '../../../src/http/rate-limit-store.js';
import { http, startTestService } from '../../support/service.js';
import { newWallet } from '../../support/signing.js';
import { waitFor, withDeadline } from '../../support/wait.js';
import { freePort } from '../../support/ports.js';

const quiet = () => undefined;

/** Two handles on one budget ("instances") and how to release them. */
interface StorePair {
  stores: [RateLimitStore, RateLimitStore];
  close(): Promise<void>;
}

function storeContract(open: () => Promise<StorePair>): void {
  let pair: StorePair;
  beforeEach(async () => {
    pair = await open();
  });
  afterEach(() => pair.close());
  let keys = 0;
  const freshKey = () => `test:${process.pid}:${Date.now()}:${keys++}`;

  it('lets the burst through, then refuses with the wait until the next token', async () => {
    const [a, b] = pair.stores;
    const key = freshKey();
    const limit = { perSecond: 2, burst: 2 };
    expect(await a.take(key, limit)).to.deep.equal({ allowed: true, retryAfterMs: 0 });
    expect(await b.take(key, limit)).to.deep.equal({ allowed: true, retryAfterMs: 0 });
    for (const store of [a, b]) {
      const refused = await store.take(key, limit);
      expect(refused.allowed).to.equal(false);
      expect(refused.retryAfterMs).to.be.within(1, 500);
    }
    expect((await a.take(freshKey(), limit)).allowed, 'another key').to.equal(true);
  });

  it('keeps a budget counted per hour: the burst, then the wait for a fraction of a token', async () => {
    const [a, b] = pair.stores;
    const key = freshKey();
    // 20 an hour: 1/180 of a token a second.
    const limit = { perSecond: 20 / 3600, burst: 20 };
    for (let i = 0; i < 20; i++)
      expect((await (i % 2 ? a : b).take(key, limit)).allowed).to.equal(true);
    const refused = await a.take(key, limit);
    expect(refused.allowed).to.equal(false);
    expect(refused.retryAfterMs).to.be.within(170_000, 180_000);
  });

  it('never lets more than the burst through under concurrent takes from both', async () => {
    const [a, b] = pair.stores;
    const key = freshKey();
    const limit = { perSecond: 1, burst: 5 };
    const decisions = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).take(key, limit)),
    );
    expect(decisions.filter((d) => d.allowed)).to.have.length(5);
  });
}

describe('rate-limit stores', () => {
  describe('in process', () => {
    storeContract(async () => {
      const store = createMemoryRateLimitStore({ clock: () => new Date() });
      return { stores: [store, store], close: () => store.close() };
    });
  });

  describe('Redis', function () {
    let binary: string;
    let server: RedisServer | undefined;
    let url = '';

    before(async function () {
      const found = onPath('redis-server');
      if (!found) {
        console.log('    Redis rate-limit store tests skipped: redis-server is not installed');
        this.skip();
      }
      binary = found;
      server = await startRedisServer(binary);
      url = server.url;
    });

    after(() => server?.stop());

    const connect = () => createRedisRateLimitStore({ url, onError: quiet });

    describe('two instances on one server', () => {
      storeContract(async () => {
        const stores: [RateLimitStore, RateLimitStore] = [await connect(), await connect()];
        return {
          stores,
          close: async () => {
            await Promise.all(stores.map((store) => store.close()));
          },
        };
      });
    });

    it('serves a client again once its token is back', async () => {
      const store = await connect();
      const limit = { perSecond: 20, burst: 1 };
      const key = `refill:${newWallet().address}`;
      expect((await store.take(key, limit)).allowed).to.equal(true);
      const refused = await store.take(key, limit);
      expect(refused).to.include({ allowed: false });
      expect(refused.retryAfterMs).to.be.within(1, 50);
      // Redis's own clock: wait (bounded) until the token is back.
      await waitFor(async () => (await store.take(key, limit)).allowed, {
        timeoutMs: 2_000,
        description: 'a refilled token',
      });
      await store.close();
    });

    it('keeps each bucket with a TTL of its refill time, and survives SCRIPT FLUSH', async () => {
      const store = await connect();
      const admin = new Redis(url);
      try {
        const key = `ttl:${newWallet().address}`;
        await store.take(key, { perSecond: 2, burst: 2 });
        const ttl = await admin.pttl(`batchbook:rate-limit:${key}`);
        expect(ttl).to.be.within(1, 501);

        await admin.script('FLUSH');
        expect((await store.take(key, { perSecond: 2, burst: 2 })).allowed).to.equal(true);
        expect((await store.take(key, { perSecond: 2, burst: 2 })).allowed).to.equal(false);
      } finally {
        admin.disconnect();
        await store.close();
      }
    });

    it('refuses to start when Redis cannot be reached, naming REDIS_URL', async () => {
      const nobody = `redis://127.0.0.1:${await freePort()}`;
      let error: unknown;
      await createRedisRateLimitStore({ url: nobody, onError: quiet }).catch((e) => (error = e));
      expect(String(error)).to.include('REDIS_URL');
    });

    it('lets requests through while Redis is down rather than failing them', async () => {
      const doomed = await startRedisServer(binary);
      const service = await startTestService({
        env: { REDIS_URL: doomed.url, RATE_LIMIT_ORDERS_PER_SECOND: '1' },
      });
      try {
        await doomed.stop();
        for (let i = 0; i < 3; i++) {
          const response = await http('POST', `${service.devnet}/api/v1/orders`, {});
          expect(response.status, response.text).to.equal(400);
        }
      } finally {
        await service.stop();
      }
    });

    it('shares one order budget between two services on one Redis', async () => {
      const env = { REDIS_URL: url, RATE_LIMIT_ORDERS_PER_SECOND: '2', TRUSTED_PROXIES: '1' };
      const first = await startTestService({ env });
      const second = await startTestService({ env });
      try {
        // One caller, as the proxy in front of both reports it (no other test here spends it).
        const caller = { 'x-forwarded-for': '192.0.2.10' };
        const post = (base: string) => http('POST', `${base}/api/v1/orders`, {}, caller);
        expect((await post(first.devnet)).status).to.equal(400);
        expect((await post(second.devnet)).status).to.equal(400);
        const limited = await post(first.devnet);
        expect(limited.status).to.equal(429);
        expect(limited.body).to.include({ errorType: 'RateLimited' });
        expect(limited.headers.get('retry-after')).to.equal('1');
        expect((await post(second.devnet)).status).to.equal(429);
      } finally {
        await Promise.all([first.stop(), second.stop()]);
      }
    });
  });
});

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return null;
}

interface RedisServer {
  url: string;
  stop(): Promise<void>;
}

/** A throwaway redis-server on a free port, without persistence; resolves once it is ready. */
async function startRedisServer(binary: string): Promise<RedisServer> {
  const port = await freePort();
  const child = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await withDeadline(ready(child), 10_000, 'redis-server start');
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await withDeadline(exited, 10_000, 'redis-server stop');
    },
  };
}

/** Resolves once redis-server says it accepts connections; rejects if it exits first. */
function ready(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${output}`)));
  });
}
