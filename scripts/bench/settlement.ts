/**
 * Latency from a settlement transaction to the trade being visible through the API.
 *
 *   npm run bench:settlement -- [--pairs 20] [--indexer-poll-ms N] [--log info]
 *
 * Starts a throw-away embedded PostgreSQL and the service on it with its own devnet, auctions
 * every 100 ms (DEVNET_AUCTION_INTERVAL_MS=100), the built-in solver and the devnet's driver
 * account; INDEXER_POLL_INTERVAL_MS is the service's default unless `--indexer-poll-ms` sets
 * it. Two owners are funded (owner A with WETH, owner B with DUSD). Then, `--pairs` times in
 * turn, A and B place opposite fill-or-kill sell orders through POST /devnet/api/v1/orders,
 * together (A sells 1 WETH for ≥ 2,900 DUSD, B sells 3,000 DUSD for ≥ 0.95 WETH: a coincidence
 * of wants at 3,000 DUSD/WETH), and the bench waits until GET /devnet/api/v2/trades?orderUid=…
 * (polled every 5 ms) shows both trades. Before each round the bench pauses for a random part of
 * the indexer's poll interval, so that settlements do not all land at the same point of its
 * cycle (rounds started back to back would: each starts just after the poll that ended the last).
 *
 * When the settlement was mined: anvil mines each transaction as it is sent, so a block
 * watcher polling eth_blockNumber every 5 ms notes when each block first appears, and the
 * transaction named by the auction's `SettlementSubmitted` (followed through a ledger
 * subscription) is asked for its receipt every 5 ms; the earlier of the two is the mined time.
 *
 * Reported, p50/p95/max over the rounds:
 *   (i)   orders placed (both POSTs answered 201) → settlement transaction mined;
 *   (ii)  transaction mined → both trades visible through the API (the issue's figure);
 *   (iii) orders placed → both trades visible;
 * and, from the ledger's timestamps, where the time goes in between.
 *
 * What dominates (ii): the indexer's poll interval. The devnet indexes with 0 confirmations, so
 * a trade enters the ledger at the indexer's first poll after its block; the indexer sleeps
 * INDEXER_POLL_INTERVAL_MS between polls (1,000 ms by default), so the trade waits about half an
 * interval on average and up to a whole one (measured on a 2-core VM: p50 ≈ 600 ms of the
 * ≈ 620 ms at the default, ≈ 45 ms of ≈ 85 ms at 50 ms). The rest is the poll's own work (its
 * RPC round trips: eth_blockNumber, eth_getLogs, block headers for the canonicality checks; and
 * the `TradeSettled`/`SettlementObserved` appends), then the trades projector's batch, woken by
 * the ledger's NOTIFY, and this bench's 5 ms API poll: together some 30–40 ms. Confirmations are
 * 0 on the devnet: no block wait; on a network with N confirmations add N block times.
 * (i) is the autopilot's interval (orders wait for its next tick: ≤ 100 ms here), the cut and
 * solve (≈ 25 ms for two orders), then the wait for the auctions projector before the driver
 * runs, the driver's gas estimate and ethers' sendTransaction (six RPCs: nonce, fee data, send,
 * block number), ≈ 60 ms together; anvil mines as it receives the transaction.
 */
import { parseArgs } from 'node:util';
import { SigningKey, Wallet, hexlify, randomBytes, type JsonRpcProvider } from 'ethers';
import { devnetProvider } from '../../src/chain/devnet/node-client.js';
import type {
  Address,
  AuctionClosedV5,
  Hex,
  OrderUid,
  SettlementFailedV1,
  SettlementSubmittedV1,
  TradeSettledV1,
} from '../../src/domain/events.js';
import { createLogger } from '../../src/logger.js';
import type { Subscription } from '../../src/ledger/port.js';
import { connectTestChain } from '../../test/support/chain.js';
import { CHAIN_ID, createFastOrderSigner } from '../../test/support/signing.js';
import { sleep, startBenchService } from './support/bench-service.js';
import { percentile } from './support/load.js';
import { commandLine, loadAverage, machine, table } from './support/harness.js';

interface Options {
  pairs: number;
  indexerPollMs: number | null;
  log: string;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      pairs: { type: 'string', default: '20' },
      'indexer-poll-ms': { type: 'string' },
      log: { type: 'string', default: 'silent' },
    },
  });
  const pairs = Number(values.pairs);
  if (!Number.isInteger(pairs) || pairs < 1) throw new Error('--pairs must be an integer ≥ 1');
  const poll = values['indexer-poll-ms'];
  if (poll !== undefined && !/^\d+$/.test(poll))
    throw new Error('--indexer-poll-ms takes milliseconds');
  return { pairs, indexerPollMs: poll === undefined ? null : Number(poll), log: values.log };
}

/** Wall-clock milliseconds with sub-millisecond resolution, comparable with `Date`s. */
const wall = () => performance.timeOrigin + performance.now();

const ONE = 10n ** 18n;
const ROUND_TIMEOUT_MS = 60_000;
const POLL_MS = 5;

/** The first time each block was seen, polling eth_blockNumber every 5 ms. */
function watchBlocks(provider: JsonRpcProvider): {
  seen: Map<number, number>;
  stop(): Promise<void>;
} {
  const seen = new Map<number, number>();
  let stopped = false;
  const running = (async () => {
    let last = -1;
    while (!stopped) {
      const head = Number(await provider.send('eth_blockNumber', []));
      const at = wall();
      for (let n = last + 1; n <= head; n++) if (!seen.has(n)) seen.set(n, at);
      last = Math.max(last, head);
      await sleep(POLL_MS);
    }
  })();
  return {
    seen,
    async stop() {
      stopped = true;
      await running;
    },
  };
}

/** What the ledger said about the bench's orders, with when (ledger clock and when we saw it). */
interface LedgerView {
  /** Winning solutions by order: the auction and the rank. */
  winnerOf: Map<OrderUid, { auction: AuctionClosedV5; rank: number; recordedAt: number }>;
  submitted: Map<string, SettlementSubmittedV1 & { recordedAt: number }>;
  failed: (SettlementFailedV1 & { recordedAt: number })[];
  traded: Map<OrderUid, TradeSettledV1 & { recordedAt: number }>;
  /** When each submitted transaction's receipt was first seen (polled every 5 ms). */
  receiptSeen: Map<Hex, number>;
  /** Every auction closed, by id. */
  auctions: Map<number, AuctionClosedV5>;
}

function followLedger(subscription: Subscription, provider: JsonRpcProvider): LedgerView {
  const view: LedgerView = {
    winnerOf: new Map(),
    submitted: new Map(),
    failed: [],
    traded: new Map(),
    receiptSeen: new Map(),
    auctions: new Map(),
  };
  const followReceipt = async (hash: Hex) => {
    const deadline = Date.now() + ROUND_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const receipt: unknown = await provider.send('eth_getTransactionReceipt', [hash]);
      if (receipt !== null) {
        view.receiptSeen.set(hash, wall());
        return;
      }
      await sleep(POLL_MS);
    }
  };
  void (async () => {
    for await (const event of subscription) {
      const recordedAt = event.recordedAt.getTime();
      if (event.type === 'AuctionClosed') {
        const auction = event.data as AuctionClosedV5;
        view.auctions.set(auction.id, auction);
        for (const solution of auction.solutions.filter((s) => s.isWinner)) {
          for (const order of solution.orders) {
            view.winnerOf.set(order.uid, { auction, rank: solution.rank, recordedAt });
          }
        }
      } else if (event.type === 'SettlementSubmitted') {
        const data = event.data as SettlementSubmittedV1;
        view.submitted.set(`${data.auctionId}/${data.rank}`, { ...data, recordedAt });
        void followReceipt(data.txHash);
      } else if (event.type === 'SettlementFailed') {
        view.failed.push({ ...(event.data as SettlementFailedV1), recordedAt });
      } else if (event.type === 'TradeSettled') {
        const data = event.data as TradeSettledV1;
        view.traded.set(data.uid, { ...data, recordedAt });
      }
    }
  })();
  return view;
}

interface Round {
  /** Wall ms: POSTs sent, both answered 201. */
  sent: number;
  placed: number;
  /** Per settlement transaction of the round. */
  txs: { hash: Hex; mined: number; visible: number; tradeRecorded: number }[];
  visible: number;
  cutAt: number;
  auctionRecorded: number;
  submittedAt: number;
  /** The winning solution traded both orders with no pool interaction. */
  cow: boolean;
}

interface ApiTrade {
  orderUid: OrderUid;
  txHash: Hex;
  blockNumber: number;
}

async function post(url: string, body: unknown): Promise<OrderUid> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST ${url}: ${response.status} ${text}`);
  return JSON.parse(text) as OrderUid;
}

async function trades(base: string, uid: OrderUid): Promise<ApiTrade[]> {
  const response = await fetch(`${base}/api/v2/trades?orderUid=${uid}`);
  if (response.status !== 200) throw new Error(`GET trades: ${response.status}`);
  return (await response.json()) as ApiTrade[];
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const logger = createLogger(options.log);
  const bench = await startBenchService(
    {
      DEVNET_AUCTION_INTERVAL_MS: '100',
      ...(options.indexerPollMs === null
        ? {}
        : { INDEXER_POLL_INTERVAL_MS: String(options.indexerPollMs) }),
    },
    logger,
  );
  const { service, config } = bench;
  const deployment = service.devnet!.deployment;
  const provider = devnetProvider(deployment.rpcUrl);
  const blocks = watchBlocks(provider);
  const subscription = service.ledger.subscribe(null, {
    streamPrefixes: ['auction-', 'onchain-'],
  });
  try {
    const chain = await connectTestChain(deployment);
    const [keyA, keyB] = [hexlify(randomBytes(32)), hexlify(randomBytes(32))];
    const [a, b] = [keyA, keyB].map((k) => new Wallet(k).address.toLowerCase() as Address);
    const weth = deployment.weth.address;
    const dusd = deployment.tokens.find((t) => t.symbol === 'DUSD')!.address;
    await chain.fund(a!, weth, BigInt(options.pairs + 1) * ONE);
    await chain.fund(b!, dusd, BigInt(options.pairs + 1) * 3000n * ONE);
    await chain.stop();

    const view = followLedger(subscription, provider);
    const signer = createFastOrderSigner(CHAIN_ID.devnet);
    const [signerA, signerB] = [new SigningKey(keyA), new SigningKey(keyB)];
    const base = `${service.url}/devnet`;
    const rounds: Round[] = [];
    const validFrom = Math.floor(Date.now() / 1000) + 3600;

    for (let round = 0; round < options.pairs; round++) {
      // A later validTo each round: new UIDs for the same amounts.
      const validTo = validFrom + round;
      const orderA = signer.sign(signerA, {
        sellToken: weth,
        buyToken: dusd,
        sellAmount: String(ONE),
        buyAmount: String(2900n * ONE),
        kind: 'sell',
        partiallyFillable: false,
        validTo,
      });
      const orderB = signer.sign(signerB, {
        sellToken: dusd,
        buyToken: weth,
        sellAmount: String(3000n * ONE),
        buyAmount: String((95n * ONE) / 100n),
        kind: 'sell',
        partiallyFillable: false,
        validTo,
      });
      const uids = [orderA.uid, orderB.uid];

      // Each round starts just after the indexer's poll that made the last one visible: without
      // a random pause, every settlement would land at the same point of the indexer's cycle.
      await sleep(Math.random() * config.indexer.pollIntervalMs);
      const sent = wall();
      await Promise.all([orderA, orderB].map((o) => post(`${base}/api/v1/orders`, o.body)));
      const placed = wall();

      const visibleAt = new Map<OrderUid, { at: number; trade: ApiTrade }>();
      const deadline = Date.now() + ROUND_TIMEOUT_MS;
      while (visibleAt.size < uids.length) {
        if (Date.now() > deadline) {
          const failures = view.failed.map((f) => `${f.reason}: ${f.detail}`).join('; ');
          throw new Error(
            `round ${round + 1}: trades not visible after ${ROUND_TIMEOUT_MS} ms ` +
              `(auctions closed: ${view.auctions.size}, winners: ${uids.filter((u) => view.winnerOf.has(u)).length}/2, ` +
              `settlements submitted: ${view.submitted.size}, failed: ${view.failed.length}${failures ? ` (${failures})` : ''}, ` +
              `TradeSettled in the ledger: ${uids.filter((u) => view.traded.has(u)).length}/2)`,
          );
        }
        await Promise.all(
          uids
            .filter((uid) => !visibleAt.has(uid))
            .map(async (uid) => {
              const found = await trades(base, uid);
              if (found.length > 0) visibleAt.set(uid, { at: wall(), trade: found[0]! });
            }),
        );
        if (visibleAt.size < uids.length) await sleep(POLL_MS);
      }
      // The receipt follower and the ledger subscription may lag the API by a moment.
      const hashes = [...new Set([...visibleAt.values()].map((v) => v.trade.txHash))];
      const settleBy = Date.now() + 2_000;
      const followed = () =>
        hashes.every((h) => view.receiptSeen.has(h)) && uids.every((u) => view.traded.has(u));
      while (!followed() && Date.now() < settleBy) {
        await sleep(POLL_MS);
      }
      const txs = hashes.map((hash) => {
        const mine = [...visibleAt.values()].filter((v) => v.trade.txHash === hash);
        const seen = [blocks.seen.get(mine[0]!.trade.blockNumber), view.receiptSeen.get(hash)];
        return {
          hash,
          mined: Math.min(...seen.filter((t): t is number => t !== undefined)),
          visible: Math.max(...mine.map((v) => v.at)),
          tradeRecorded: Math.max(
            ...mine.map((v) => view.traded.get(v.trade.orderUid)?.recordedAt ?? NaN),
          ),
        };
      });
      const winner = view.winnerOf.get(orderA.uid);
      const submitted = winner && view.submitted.get(`${winner.auction.id}/${winner.rank}`);
      const solution = winner?.auction.solutions.find((s) => s.rank === winner.rank);
      rounds.push({
        sent,
        placed,
        txs,
        visible: Math.max(...[...visibleAt.values()].map((v) => v.at)),
        cutAt: winner ? Date.parse(winner.auction.cutAt) : NaN,
        auctionRecorded: winner?.recordedAt ?? NaN,
        submittedAt: submitted ? Date.parse(submitted.submittedAt) : NaN,
        cow:
          txs.length === 1 &&
          solution !== undefined &&
          solution.orders.length === 2 &&
          solution.interactions.length === 0,
      });
      console.error(
        `round ${round + 1}/${options.pairs}: mined +${(txs[0]!.mined - placed).toFixed(0)} ms, ` +
          `visible +${(rounds.at(-1)!.visible - placed).toFixed(0)} ms (${txs.length} tx)`,
      );
    }
    report(options, config.indexer.pollIntervalMs, rounds, view);
  } finally {
    await subscription.close();
    await blocks.stop();
    provider.destroy();
    await bench.stop();
  }
}

function report(
  options: Options,
  pollMs: number,
  rounds: readonly Round[],
  view: LedgerView,
): void {
  const stats = (values: number[]) => {
    const sorted = values.filter((v) => !Number.isNaN(v)).sort((x, y) => x - y);
    const f = (v: number) => (Number.isNaN(v) ? '-' : v.toFixed(0));
    return [
      f(percentile(sorted, 50)),
      f(percentile(sorted, 95)),
      f(sorted.at(-1) ?? NaN),
      String(sorted.length),
    ];
  };
  const txs = rounds.flatMap((r) => r.txs);
  const last = (r: Round) => Math.max(...r.txs.map((t) => t.mined));
  console.log('\nbatchbook benchmark: settlement transaction → trade visible through the API');
  console.log(`machine: ${machine()}`);
  console.log(`command: ${commandLine()}`);
  console.log(
    `service: DEVNET_AUCTION_INTERVAL_MS=100, INDEXER_POLL_INTERVAL_MS=${pollMs}` +
      `${options.indexerPollMs === null ? ' (the default)' : ''}, devnet confirmations 0; ` +
      `${rounds.length} rounds, one pair of orders each; API polled every ${POLL_MS} ms\n`,
  );
  console.log(
    table([
      ['latency (ms)', 'p50', 'p95', 'max', 'n'],
      ['(i) orders placed → settlement mined', ...stats(rounds.map((r) => last(r) - r.placed))],
      ['(ii) settlement mined → trades visible', ...stats(txs.map((t) => t.visible - t.mined))],
      ['(iii) orders placed → trades visible', ...stats(rounds.map((r) => r.visible - r.placed))],
    ]),
  );
  console.log(
    '\nwhere the time goes (ledger timestamps; the service and the bench share a clock):',
  );
  console.log(
    table([
      ['step (ms)', 'p50', 'p95', 'max', 'n'],
      ['POST both orders (201, projected)', ...stats(rounds.map((r) => r.placed - r.sent))],
      ['placed → auction cut (autopilot tick)', ...stats(rounds.map((r) => r.cutAt - r.placed))],
      [
        'cut → AuctionClosed appended (cut, solve)',
        ...stats(rounds.map((r) => r.auctionRecorded - r.cutAt)),
      ],
      [
        'AuctionClosed → settlement sent (projection, gas estimate)',
        ...stats(rounds.map((r) => r.submittedAt - r.auctionRecorded)),
      ],
      [
        'mined → TradeSettled appended (indexer)',
        ...stats(txs.map((t) => t.tradeRecorded - t.mined)),
      ],
      [
        'TradeSettled → visible (projection, API poll)',
        ...stats(txs.map((t) => t.visible - t.tradeRecorded)),
      ],
    ]),
  );
  console.log(loadAverage());
  const cows = rounds.filter((r) => r.cow).length;
  const failures = view.failed.map((f) => {
    // A failed settlement's orders may have traded before its auction was cut: the cut took
    // them in although the chain had filled them.
    const auction = view.auctions.get(f.auctionId);
    const solution = auction?.solutions.find((s) => s.rank === f.rank);
    const stale = (solution?.orders ?? []).flatMap((o) => {
      const traded = view.traded.get(o.uid);
      const cut = Date.parse(auction!.cutAt);
      return traded && traded.recordedAt <= cut
        ? [
            `${o.uid.slice(0, 10)}… traded ${(cut - traded.recordedAt).toFixed(0)} ms before the cut`,
          ]
        : [];
    });
    const detail = f.detail.length > 200 ? `${f.detail.slice(0, 200)}…` : f.detail;
    return (
      `auction ${f.auctionId} rank ${f.rank}: ${f.reason} (${detail})` +
      (stale.length ? `; of its ${solution!.orders.length} orders, ${stale.join(', ')}` : '')
    );
  });
  console.log(
    `\n${cows} of ${rounds.length} rounds settled as one coincidence of wants (no pool ` +
      `interaction); ${txs.length} settlement transactions; ${view.auctions.size} auctions closed; ` +
      `${view.failed.length} settlements failed` +
      (failures.length ? `:\n  ${failures.join('\n  ')}` : ''),
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
