/**
 * Time to cut and solve an auction of 1,000 and 10,000 open orders: the built-in solver in
 * process, and one external solver engine over HTTP answering as the built-in one does.
 *
 *   npm run bench:auction -- [--orders 1000,10000] [--owners 100] [--runs 3]
 *
 * For each size: a throw-away embedded PostgreSQL in a temp dir and the service on it with its
 * own devnet, its autopilot idle (DEVNET_AUCTION_INTERVAL_MS=3600000: the leader loop steps
 * once at start, when there are no orders, then sleeps an hour; the bench checks afterwards
 * that it closed no auction). `--owners` owners are funded with WETH, DUSD, DCOW and DDAI, all
 * approved to the vault relayer. N open orders go straight into the ledger as `OrderPlaced`
 * events (their signatures are not checked when cutting or solving; nothing is settled): random
 * pairs of the four tokens, both kinds, ~30 % partially fillable, worth 0.01–2 WETH, limit
 * prices within ±3 % of the devnet pools' price (1 WETH = 3,000 DUSD = 10,000 DCOW = 3,000
 * DDAI), so there are coincidences of wants, orders the pools can fill (the pools take 0.3 %)
 * and orders nothing can fill; valid for an hour. The bench waits for the orders projector to
 * have them all, then measures `--runs` times, each at a new block (one is mined first, so the
 * price estimator reads reserves afresh, as it would for a new auction on a live chain):
 *   - `cutAuction` with the service's own implementations of its dependencies (the solvable
 *     and in-flight queries on the read models, the price estimator and balance checks over
 *     JSON-RPC on the devnet), split into its parts;
 *   - loading the pools between the auction's tokens (`prices.pools`, as the autopilot does),
 *     and the tokens' facts (decimals, symbol, the settlement's balance) and the gas price;
 *   - building the published solver API's `Auction` (`roundSetup`), and its JSON;
 *   - the built-in solver on it, in process, and taking its solutions in (liquidity encoded);
 *   - an engine over HTTP on 127.0.0.1 (test/support/solver-server.ts: the built-in solver
 *     behind the published API, in this process) asked the same, the round trip measured whole,
 *     and reading its answer (`JSON.parse` and the API's checks) on its own, then its intake;
 *   - the referee's ranking of both solvers' solutions;
 * and prints the median and minimum of each, with the solutions found and the request's and
 * the answer's size.
 */
import { parseArgs } from 'node:util';
import { Wallet, hexlify, randomBytes } from 'ethers';
import knex, { type Knex } from 'knex';
import { auctionedOrders, cutAuction, type CutDeps } from '../../src/auction/cut.js';
import { createBuiltinSolver } from '../../src/auction/builtin-solver.js';
import { createExternalSolver } from '../../src/auction/external-solver.js';
import { marketTokens, roundSetup, takeAnswer } from '../../src/auction/round.js';
import { readAnswer } from '../../src/auction/solver-api/answer.js';
import { createTokenDecimals } from '../../src/chain/token-decimals.js';
import { createTokenFacts } from '../../src/chain/token-facts.js';
import { rankProposals } from '../../src/domain/referee/competition.js';
import {
  changesSince,
  wholeCut,
  type CutChanges,
  type CutRecord,
} from '../../src/domain/auction-record.js';
import { answerJson } from '../../test/support/solver-wire.js';
import { startSolverServer } from '../../test/support/solver-server.js';
import { createOrderChainChecks } from '../../src/chain/order-checks.js';
import { createPriceEstimator } from '../../src/chain/prices.js';
import { createChainRpc } from '../../src/chain/rpc.js';
import { devnetSolver } from '../../src/chain/devnet/accounts.js';
import { appDataHash } from '../../src/domain/app-data.js';
import { computeOrderUid, domainSeparator, orderDigest } from '../../src/domain/eip712.js';
import { deterministicEventId } from '../../src/domain/event-ids.js';
import {
  EVENT_VERSIONS,
  streams,
  type Address,
  type Hex,
  type OrderData,
  type OrderPlacedV1,
  type RankedSolution,
} from '../../src/domain/events.js';
import { DEVNET_DEMO_TOKENS, networkByName } from '../../src/domain/networks.js';
import type { Ledger } from '../../src/ledger/port.js';
import { createLogger } from '../../src/logger.js';
import { createCompetitionQueries } from '../../src/queries/competitions.js';
import { createOrderQueries } from '../../src/queries/orders.js';
import type { RunningService } from '../../src/startup/start-service.js';
import { connectTestChain } from '../../test/support/chain.js';
import { percentile } from './support/load.js';
import { sleep, startBenchService } from './support/bench-service.js';
import { commandLine, loadAverage, machine, table } from './support/harness.js';
import { seededRandom } from './support/seeded-random.js';

/** Polls `read` until it is ≥ `position` (the projector has applied everything up to it). */
export async function waitForProjector(
  db: Knex,
  ledger: Ledger,
  projector: string,
  position: string,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await db.raw<{ rows: { position: string | null }[] }>(
      'SELECT position FROM read.projection_checkpoints WHERE projector = ?',
      [projector],
    );
    const at = rows[0]?.position ?? null;
    if (at !== null && ledger.comparePositions(at, position) >= 0) return;
    if (Date.now() > deadline)
      throw new Error(`projector ${projector} not at ${position} after ${timeoutMs} ms (at ${at})`);
    await sleep(20);
  }
}

// ---------------------------------------------------------------------------------------------
// The orders
// ---------------------------------------------------------------------------------------------

interface Options {
  orders: number[];
  owners: number;
  runs: number;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      orders: { type: 'string', default: '1000,10000' },
      owners: { type: 'string', default: '100' },
      runs: { type: 'string', default: '3' },
    },
  });
  const int = (text: string, name: string, min: number): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min}`);
    return n;
  };
  return {
    orders: values.orders.split(',').map((n) => int(n.trim(), 'orders', 1)),
    owners: int(values.owners, 'owners', 1),
    runs: int(values.runs, 'runs', 1),
  };
}

const devnet = networkByName('devnet')!;
const WETH = devnet.wrappedNativeToken;
/** WETH per whole token at the devnet pools' prices. */
const TOKENS: readonly { address: Address; symbol: string; inWeth: number }[] = [
  { address: WETH, symbol: 'WETH', inWeth: 1 },
  { address: DEVNET_DEMO_TOKENS.DUSD, symbol: 'DUSD', inWeth: 1 / 3000 },
  { address: DEVNET_DEMO_TOKENS.DCOW, symbol: 'DCOW', inWeth: 1 / 10_000 },
  { address: DEVNET_DEMO_TOKENS.DDAI, symbol: 'DDAI', inWeth: 1 / 3000 },
];
/** Each owner's balance of each token: worth 500 WETH, far above any one order. */
const FUNDING_IN_WETH = 500;

/** Whole tokens (a float) as 18-decimal atoms, to a millionth of a token. */
const atoms = (tokens: number): bigint => BigInt(Math.round(tokens * 1e6)) * 10n ** 12n;

const EMPTY_APP_DATA = appDataHash('{}');

function makeOrders(count: number, owners: readonly Address[], seed: number): OrderPlacedV1[] {
  const next = seededRandom(seed);
  const separator = domainSeparator(devnet.chainId, devnet.settlementContract);
  const validTo = Math.floor(Date.now() / 1000) + 3600;
  const creationDate = new Date().toISOString();
  const placed: OrderPlacedV1[] = [];
  for (let i = 0; i < count; i++) {
    const owner = owners[i % owners.length]!;
    const sell = TOKENS[Math.floor(next() * TOKENS.length)]!;
    const others = TOKENS.filter((t) => t !== sell);
    const buy = others[Math.floor(next() * others.length)]!;
    const kind = next() < 0.5 ? 'sell' : 'buy';
    // Log-uniform between 0.01 and 2 WETH.
    const value = 0.01 * Math.exp(next() * Math.log(200));
    // > 0: a worse price than the pools' for the other side, < 0: a better one.
    const skew = (next() * 2 - 1) * 0.03;
    const fair = { sell: value / sell.inWeth, buy: value / buy.inWeth };
    // Sell: sells `fair.sell` for at least `fair.buy·(1+skew)`; buy: buys `fair.buy` for at
    // most `fair.sell·(1−skew)`. `i` atoms more make every order (and UID) distinct.
    const sellAmount =
      (kind === 'sell' ? atoms(fair.sell) : atoms(fair.sell * (1 - skew))) + BigInt(i);
    const buyAmount = kind === 'sell' ? atoms(fair.buy * (1 + skew)) : atoms(fair.buy);
    const order: OrderData = {
      sellToken: sell.address,
      buyToken: buy.address,
      receiver: null,
      sellAmount: sellAmount.toString(),
      buyAmount: buyAmount.toString(),
      validTo,
      appData: EMPTY_APP_DATA,
      feeAmount: '0',
      kind,
      partiallyFillable: next() < 0.3,
      sellTokenBalance: 'erc20',
      buyTokenBalance: 'erc20',
    };
    const uid = computeOrderUid(orderDigest(order, separator), owner, validTo);
    placed.push({
      network: devnet.name,
      uid,
      owner,
      order,
      signingScheme: 'eip712',
      // Not a valid signature: neither cutting nor solving checks it, and nothing settles here.
      signature: `${hexlify(randomBytes(64))}1b` as Hex,
      class: 'limit',
      creationDate,
      settlementContract: devnet.settlementContract,
      fullAppData: '{}',
      quoteId: null,
      quote: null,
      interactions: { pre: [], post: [] },
    });
  }
  return placed;
}

/** Appends each order to its own stream, as the command does, `concurrency` at a time. */
async function appendOrders(
  ledger: Ledger,
  orders: readonly OrderPlacedV1[],
  concurrency = 32,
): Promise<string> {
  let last: string | null = null;
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < orders.length; i = next++) {
      const placed = orders[i]!;
      const { position } = await ledger.append(
        streams.order(placed.network, placed.uid),
        [
          {
            id: deterministicEventId('OrderPlaced', placed.network, placed.uid),
            type: 'OrderPlaced',
            version: EVENT_VERSIONS.OrderPlaced,
            data: placed,
          },
        ],
        'noStream',
      );
      if (last === null || ledger.comparePositions(position, last) > 0) last = position;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return last!;
}

// ---------------------------------------------------------------------------------------------
// Measuring
// ---------------------------------------------------------------------------------------------

const PHASES = [
  'cut: solvable query',
  'cut: in-flight query',
  'cut: native prices',
  'cut: balance checks',
  'cut (total)',
  'pools',
  'token facts and gas price',
  'build the Auction',
  'its JSON',
  'built-in: solve',
  'built-in: intake',
  'HTTP engine: round trip',
  'HTTP engine: read the answer',
  'HTTP engine: intake',
  'rank',
  'total',
] as const;
type Phase = (typeof PHASES)[number];

/** The wall time from the first call's start to the last call's end, and the number of calls. */
class Span<A extends unknown[]> {
  start = Infinity;
  end = -Infinity;
  calls = 0;
  readonly args: A[] = [];
  wrap<R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
    return async (...args) => {
      this.calls++;
      this.args.push(args);
      this.start = Math.min(this.start, performance.now());
      try {
        return await fn(...args);
      } finally {
        this.end = Math.max(this.end, performance.now());
      }
    };
  }
  get ms(): number {
    return this.calls === 0 ? 0 : this.end - this.start;
  }
}

interface RunResult {
  ms: Record<Phase, number>;
  auctionOrders: number;
  filtered: Record<string, number>;
  tokens: number;
  pools: number;
  balanceCalls: number;
  priceCalls: number;
  proposed: number;
  ranked: number;
  winners: number;
  bestTraded: number;
  bestScore: string;
  bestInteractions: number;
  /** The JSON of the `AuctionClosed` the autopilot would append for this auction, whole. */
  auctionClosedBytes: number;
  /** The same auction recorded as the changes since the same cut (with its solutions, without). */
  changesBytes: number;
  changesWithoutSolutionsBytes: number;
  requestBytes: number;
  answerBytes: number;
  externalSolutions: number;
}

interface SizeResult {
  orders: number;
  setupMs: number;
  fundMs: number;
  appendMs: number;
  projectMs: number;
  runs: RunResult[];
  autopilotAuctions: number;
}

async function fundOwners(service: RunningService, count: number): Promise<Address[]> {
  const chain = await connectTestChain(service.devnet!.deployment);
  const owners = Array.from(
    { length: count },
    () => new Wallet(hexlify(randomBytes(32))).address.toLowerCase() as Address,
  );
  try {
    // One after another: the demo tokens' mints all come from the deployer, whose concurrent
    // transactions would compete for one nonce.
    for (const owner of owners) {
      for (const token of TOKENS) {
        await chain.fund(owner, token.address, atoms(FUNDING_IN_WETH / token.inWeth));
      }
    }
  } finally {
    await chain.stop();
  }
  return owners;
}

async function measureSize(size: number, options: Options): Promise<SizeResult> {
  const started = performance.now();
  const bench = await startBenchService({ DEVNET_AUCTION_INTERVAL_MS: '3600000' });
  const { service } = bench;
  const db = knex({ client: 'pg', connection: bench.databaseUrl, pool: { min: 0, max: 8 } });
  const rpc = createChainRpc(devnet, service.devnet!.rpcUrl);
  try {
    const setupMs = performance.now() - started;
    let t = performance.now();
    const owners = await fundOwners(service, options.owners);
    const fundMs = performance.now() - t;

    const orders = makeOrders(size, owners, size);
    t = performance.now();
    const last = await appendOrders(service.ledger, orders);
    const appendMs = performance.now() - t;
    t = performance.now();
    await waitForProjector(db, service.ledger, 'orders', last);
    const projectMs = performance.now() - t;

    // The service's own implementations of the cut's dependencies, on their own connections.
    const orderQueries = createOrderQueries(db);
    const competitions = createCompetitionQueries(db);
    const prices = createPriceEstimator(rpc, devnet);
    const checks = createOrderChainChecks(rpc, devnet);
    const chain = await connectTestChain(service.devnet!.deployment);
    // As the service configures it.
    const builtin = createBuiltinSolver(devnetSolver().address.toLowerCase() as Address, WETH, {
      slippageBps: BigInt(bench.config.auction.builtinSolverSlippageBps),
    });
    const tokenFacts = createTokenFacts(rpc, createTokenDecimals(rpc));
    const engine = await startSolverServer();
    const external = createExternalSolver(
      { name: 'http', address: `0x${'e'.repeat(40)}` as Address, url: engine.url, quote: false },
      { logger: createLogger('silent') },
    );

    const runs: RunResult[] = [];
    for (let run = 0; run < options.runs; run++) {
      // A new block: the estimator's reserves and native prices are read afresh, as for a new
      // auction on a live chain (pair addresses stay cached, as they do in the service).
      await chain.mine();
      const spans = {
        solvable: new Span<[number, number]>(),
        inFlight: new Span<[Date]>(),
        prices: new Span<[Address]>(),
        balances: new Span<[Address, Address]>(),
      };
      const deps: CutDeps = {
        solvable: spans.solvable.wrap((now: number, validAfter: number) =>
          orderQueries.solvable(devnet.name, now, validAfter),
        ),
        inFlight: spans.inFlight.wrap((now: Date) => competitions.inFlight(devnet.name, now)),
        prices: { ...prices, nativePrice: spans.prices.wrap(prices.nativePrice) },
        chain: {
          balanceOf: spans.balances.wrap(checks.balanceOf),
          allowance: spans.balances.wrap(checks.allowance),
          eip1271SignatureValid: checks.eip1271SignatureValid,
        },
        blockNumber: () => rpc.request('block number', (p) => p.getBlockNumber()),
        validityMargin: 30,
        interactionTargets: devnet,
      };

      const t0 = performance.now();
      const cut = await cutAuction(deps, new Date());
      const t1 = performance.now();
      const pools = await prices.pools(Object.keys(cut.prices) as Address[]);
      const t2 = performance.now();
      const [tokens, effectiveGasPrice] = await Promise.all([
        tokenFacts.read(marketTokens(cut, pools, WETH), devnet.settlementContract, cut.block),
        prices.gasPrice(),
      ]);
      const t3 = performance.now();
      const deadline = new Date(Date.now() + 120_000);
      const market = { pools, tokens, effectiveGasPrice };
      const setup = roundSetup(devnet, run + 1, cut, market, new Set([WETH]), deadline);
      const t4 = performance.now();
      const requestBytes = Buffer.byteLength(JSON.stringify(setup.auction));
      const t5 = performance.now();
      const signal = AbortSignal.timeout(120_000);
      const quiet = createLogger('silent');
      const builtinAnswer = await builtin.solve(setup.auction, signal);
      const t6 = performance.now();
      const fromBuiltin = takeAnswer(builtin, builtinAnswer, setup.intake, quiet, () => {});
      const t7 = performance.now();
      const externalAnswer = await external.solve(setup.auction, signal);
      const t8 = performance.now();
      const answerText = JSON.stringify(answerJson(externalAnswer));
      const t9 = performance.now();
      readAnswer(JSON.parse(answerText));
      const t10 = performance.now();
      const fromExternal = takeAnswer(external, externalAnswer, setup.intake, quiet, () => {});
      const t11 = performance.now();
      const proposed = [...fromBuiltin, ...fromExternal];
      const ranked = rankProposals(setup.referee, proposed).map(({ solution }) => solution);
      const t12 = performance.now();

      const record: CutRecord = {
        orders: auctionedOrders(cut.orders),
        prices: cut.prices,
        filtered: cut.filtered,
      };
      const filtered: Record<string, number> = {};
      for (const { reason } of cut.filtered) filtered[reason] = (filtered[reason] ?? 0) + 1;
      const best = ranked[0];
      runs.push({
        ms: {
          'cut: solvable query': spans.solvable.ms,
          'cut: in-flight query': spans.inFlight.ms,
          'cut: native prices': spans.prices.ms,
          'cut: balance checks': spans.balances.ms,
          'cut (total)': t1 - t0,
          pools: t2 - t1,
          'token facts and gas price': t3 - t2,
          'build the Auction': t4 - t3,
          'its JSON': t5 - t4,
          'built-in: solve': t6 - t5,
          'built-in: intake': t7 - t6,
          'HTTP engine: round trip': t8 - t7,
          'HTTP engine: read the answer': t10 - t9,
          'HTTP engine: intake': t11 - t10,
          rank: t12 - t11,
          total: t12 - t0 - (t10 - t8),
        },
        auctionOrders: cut.orders.length,
        filtered,
        tokens: Object.keys(cut.prices).length,
        pools: pools.length,
        balanceCalls: spans.balances.calls,
        priceCalls: spans.prices.calls,
        proposed: proposed.length,
        ranked: ranked.length,
        winners: ranked.filter((s) => s.isWinner).length,
        bestTraded: best?.orders.length ?? 0,
        bestScore: best?.score ?? '0',
        bestInteractions: best?.interactions.length ?? 0,
        auctionClosedBytes: recordBytes(wholeCut(record), ranked),
        // What the autopilot appends for the same cut one auction later: its changes (none here:
        // nothing settled between the runs) and its solutions.
        changesBytes: recordBytes(changesSince({ id: run, cut: record }, record), ranked),
        changesWithoutSolutionsBytes: recordBytes(
          changesSince({ id: run, cut: record }, record),
          [],
        ),
        requestBytes,
        answerBytes: Buffer.byteLength(answerText),
        externalSolutions: fromExternal.length,
      });
    }
    await chain.stop();
    await engine.close();

    // The autopilot must not have cut an auction of these orders under the bench.
    const { rows } = await db
      .raw<{ rows: { n: number }[] }>(
        "SELECT count(*)::int AS n FROM ledger_events WHERE type = 'AuctionClosed'",
      )
      .catch(() => ({ rows: [{ n: -1 }] }));
    return {
      orders: size,
      setupMs,
      fundMs,
      appendMs,
      projectMs,
      runs,
      autopilotAuctions: rows[0]!.n,
    };
  } finally {
    rpc.close();
    await db.destroy();
    await bench.stop();
  }
}

/** Bytes of the JSON of an `AuctionClosed` recording `changes` and `solutions` (as the ledger keeps it). */
function recordBytes(changes: CutChanges, solutions: readonly RankedSolution[]): number {
  const at = new Date(0).toISOString();
  const header = { network: 'devnet', id: 1, block: 1, cutAt: at, deadline: at, deadlineBlock: 1 };
  return Buffer.byteLength(JSON.stringify({ ...header, ...changes, solutions }));
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

const fmt = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

function report(options: Options, results: SizeResult[]): void {
  console.log(
    '\nbatchbook benchmark: cutting and solving one auction (built-in solver and an HTTP engine, devnet)',
  );
  console.log(`machine: ${machine()}`);
  console.log(`command: ${commandLine()}`);
  console.log(`owners: ${options.owners}; runs per size: ${options.runs} (median and min below)\n`);
  const rows = [['orders', 'phase', 'median ms', 'min ms']];
  for (const result of results) {
    for (const phase of PHASES) {
      const values = result.runs.map((r) => r.ms[phase]);
      rows.push([
        result.orders.toLocaleString('en-US'),
        phase,
        fmt(median(values)),
        fmt(Math.min(...values)),
      ]);
    }
  }
  console.log(table(rows));
  console.log(`${loadAverage()}\n`);
  for (const result of results) {
    const r = result.runs.at(-1)!;
    const filtered = Object.entries(r.filtered)
      .map(([reason, n]) => `${n} ${reason}`)
      .join(', ');
    console.log(
      `${result.orders.toLocaleString('en-US')} orders: ${r.auctionOrders} in the auction` +
        `${filtered ? ` (${filtered} filtered)` : ''}, ${r.tokens} tokens, ${r.pools} pools; ` +
        `${r.priceCalls} native prices, ${r.balanceCalls} balance eth_calls; ` +
        `${r.proposed} solutions proposed, ${r.ranked} ranked, ${r.winners} winner(s); ` +
        `best: ${r.bestTraded} traded orders, ${r.bestInteractions} interactions (2 per pool swap), score ${r.bestScore}; ` +
        `its AuctionClosed event: ${(r.auctionClosedBytes / 1024).toFixed(1)} KiB of JSON whole, ` +
        `${(r.changesBytes / 1024).toFixed(1)} KiB as the changes since the same cut ` +
        `(${(r.changesWithoutSolutionsBytes / 1024).toFixed(1)} KiB of it without the solutions); ` +
        `the Auction sent: ${(r.requestBytes / 2 ** 20).toFixed(2)} MiB, the HTTP engine's answer ` +
        `${(r.answerBytes / 1024).toFixed(0)} KiB with ${r.externalSolutions} solutions taken in`,
    );
    console.log(
      `  setup (not measured): service ${(result.setupMs / 1000).toFixed(1)} s, funding ` +
        `${(result.fundMs / 1000).toFixed(1)} s, ${result.orders} OrderPlaced appends ` +
        `${(result.appendMs / 1000).toFixed(1)} s, projected ${(result.projectMs / 1000).toFixed(1)} s later; ` +
        `auctions the autopilot closed meanwhile: ${result.autopilotAuctions}`,
    );
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const results: SizeResult[] = [];
  for (const size of options.orders) {
    console.error(`${size} orders…`);
    results.push(await measureSize(size, options));
  }
  report(options, results);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
