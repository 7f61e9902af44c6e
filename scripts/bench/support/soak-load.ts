/**
 * The soak's load generator, on a worker thread started by soak.ts (its heap and its event loop
 * stay off the service's thread; its CPU does not stay off the two cores). Open loop: requests
 * leave at fixed rates whatever the service's latency, so a slowing service meets the same
 * arrivals, not fewer. Each minute it reports counts, errors (any status outside 2xx, or no
 * answer) and p99 per kind of request to the main thread.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { SigningKey, computeAddress } from 'ethers';
import { CHAIN_ID, createFastOrderSigner } from '../../../test/support/signing.js';
import { httpClient, percentile, type LoadRequest, type Response } from './load.js';
import type { Trading } from './owners.js';
import { quoteRequest, type QuoteParties } from './quote-request.js';

export interface SoakLoadData {
  url: string;
  seconds: number;
  ordersPerSecond: number;
  trading: Trading;
  parties: QuoteParties;
}

export const KINDS = [
  'POST /orders',
  'GET /orders/{uid}',
  'GET /account/{owner}/orders',
  'POST /quote',
  'GET /auction',
] as const;
export type Kind = (typeof KINDS)[number];

export interface KindStats {
  requests: number;
  errors: number;
  p99: number;
  firstError: string | null;
}

export interface MinuteStats {
  minute: number;
  kinds: Record<Kind, KindStats>;
  /** Requests sent but not answered when the minute ended: grows when the service falls behind. */
  inFlight: number;
  /** The latest auction seen this minute: its id and how many orders it held. */
  auction: { id: number; orders: number } | null;
}

export type SoakMessage =
  { kind: 'minute'; stats: MinuteStats } | { kind: 'done' } | { kind: 'failed'; error: string };

/** One order in FILLABLE_EVERY can trade against the devnet's WETH/DUSD pool; the rest cannot. */
const FILLABLE_EVERY = 20;
/** Past the minimum validity (60 s): each order leaves the auctions (30 s margin) ~40 s later. */
const VALIDITY_SECONDS = 70;
/** Order reads pick among the latest RECENT orders placed. */
const RECENT = 2_000;
const TICK_MS = 5;

/** A request, and what to do once it is answered 2xx. */
type SoakRequest = LoadRequest & { onOk?: () => void };

interface Plan {
  kind: Kind;
  perSecond: number;
  /** Request `i` of its kind, or null when there is nothing to ask yet. */
  build(i: number): SoakRequest | null;
}

function plans(data: SoakLoadData): Plan[] {
  const { trading, parties, ordersPerSecond: rate } = data;
  const prefix = '/devnet/api/v1';
  const keys = trading.ownerKeys.map((key) => new SigningKey(key));
  const owners = keys.map((key) => computeAddress(key).toLowerCase());
  const signer = createFastOrderSigner(CHAIN_ID.devnet);
  const recent: string[] = [];
  let placed = 0;
  const order = (i: number): SoakRequest => {
    // Fillable: 0.001 WETH for ≥ 1 DUSD (the pool gives ~3); the others ask 1,000 DDAI for it.
    const fillable = i % FILLABLE_EVERY === 0;
    const { body, uid } = signer.sign(keys[i % keys.length]!, {
      sellToken: fillable ? parties.weth : trading.sellTokens[i % 2],
      buyToken: fillable ? parties.dusd : parties.ddai,
      sellAmount: String(10n ** 15n + BigInt(i)),
      buyAmount: fillable ? String(10n ** 18n) : String(10n ** 21n),
      validTo: Math.floor(Date.now() / 1000) + VALIDITY_SECONDS,
    });
    return {
      method: 'POST',
      path: `${prefix}/orders`,
      body: Buffer.from(JSON.stringify(body)),
      // Read only once placed: a read of an order still in flight would be a 404.
      onOk: () => (recent[placed++ % RECENT] = uid),
    };
  };
  return [
    { kind: 'POST /orders', perSecond: rate, build: order },
    {
      kind: 'GET /orders/{uid}',
      perSecond: rate,
      build: (i) =>
        recent.length
          ? { method: 'GET', path: `${prefix}/orders/${recent[i % recent.length]}` }
          : null,
    },
    {
      kind: 'GET /account/{owner}/orders',
      perSecond: rate / 4,
      build: (i) => ({
        method: 'GET',
        path: `${prefix}/account/${owners[i % owners.length]}/orders`,
      }),
    },
    { kind: 'POST /quote', perSecond: rate / 10, build: (i) => quoteRequest(parties, i) },
    // A solver's view of the book; a few MiB of JSON with thousands of open orders.
    {
      kind: 'GET /auction',
      perSecond: 0.2,
      build: () => ({ method: 'GET', path: `${prefix}/auction` }),
    },
  ];
}

class Minute {
  private readonly latencies = new Map<Kind, number[]>(KINDS.map((k) => [k, []]));
  private readonly errors = new Map<Kind, { count: number; first: string | null }>(
    KINDS.map((k) => [k, { count: 0, first: null }]),
  );
  auction: MinuteStats['auction'] = null;

  record(kind: Kind, response: Response, ms: number, ok: boolean): void {
    this.latencies.get(kind)!.push(ms);
    if (ok) return;
    const errors = this.errors.get(kind)!;
    errors.count += 1;
    errors.first ??= `${response.status} ${response.body.slice(0, 200)}`;
  }

  stats(minute: number, inFlight: number): MinuteStats {
    const kinds = Object.fromEntries(
      KINDS.map((kind) => {
        const sorted = this.latencies.get(kind)!.sort((a, b) => a - b);
        const { count, first } = this.errors.get(kind)!;
        return [
          kind,
          {
            requests: sorted.length,
            errors: count,
            p99: percentile(sorted, 99),
            firstError: first,
          },
        ];
      }),
    ) as Record<Kind, KindStats>;
    return { minute, kinds, inFlight, auction: this.auction };
  }
}

async function runSoakLoad(data: SoakLoadData, post: (m: SoakMessage) => void): Promise<void> {
  const client = httpClient(new URL(data.url), 256);
  const schedule = plans(data).map((plan) => ({ ...plan, sent: 0 }));
  const inFlight = new Set<Promise<void>>();
  let current = new Minute();
  // Until the first auction is cut, `GET /auction` answers 404 by design.
  let auctionSeen = false;

  const fire = (kind: Kind, request: SoakRequest) => {
    const started = performance.now();
    const done = client
      .send(request)
      .catch((error: unknown): Response => ({ status: 0, body: String(error) }))
      .then((response) => {
        const ok = response.status >= 200 && response.status < 300;
        if (ok) request.onOk?.();
        if (kind === 'GET /auction' && ok) {
          const { id, orders } = JSON.parse(response.body) as { id: number; orders: unknown[] };
          current.auction = { id, orders: orders.length };
          auctionSeen = true;
        }
        const expected = ok || (kind === 'GET /auction' && response.status === 404 && !auctionSeen);
        current.record(kind, response, performance.now() - started, expected);
        inFlight.delete(done);
      });
    inFlight.add(done);
  };

  const began = performance.now();
  for (let minute = 0; ; await sleep(TICK_MS)) {
    const elapsed = performance.now() - began;
    if (elapsed >= (minute + 1) * 60_000) {
      post({ kind: 'minute', stats: current.stats(minute++, inFlight.size) });
      current = new Minute();
    }
    if (elapsed >= data.seconds * 1000) break;
    for (const plan of schedule) {
      const due = Math.floor((elapsed * plan.perSecond) / 1000) + 1;
      for (; plan.sent < due; plan.sent++) {
        const request = plan.build(plan.sent);
        if (request) fire(plan.kind, request);
      }
    }
  }
  await Promise.all(inFlight);
  client.close();
}

if (!isMainThread) {
  const post = (message: SoakMessage) => parentPort!.postMessage(message);
  runSoakLoad(workerData as SoakLoadData, post).then(
    () => post({ kind: 'done' }),
    (error: unknown) => post({ kind: 'failed', error: String(error) }),
  );
}
