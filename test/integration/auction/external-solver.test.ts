import { expect } from 'chai';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createExternalSolver } from '../../../src/auction/external-solver.js';
import type { SolverRound } from '../../../src/auction/solver.js';
import { solverAuctionOf, type SolveRequest } from '../../../src/auction/solver-wire.js';
import { swapInteractions } from '../../../src/auction/swap-interactions.js';
import type { Address, AuctionOrder } from '../../../src/domain/events.js';
import { networkByName } from '../../../src/domain/networks.js';
import { solve } from '../../../src/domain/solver/solve.js';
import type { SolverOrder } from '../../../src/domain/solver/types.js';
import {
  builtinAnswer,
  startSolverServer,
  type SolverServer,
} from '../../support/solver-server.js';
import {
  DDAI,
  DUSD,
  E18,
  WETH,
  auction,
  ddaiPool,
  devnetPool,
  devnetPrices,
  order,
  uid,
} from '../../unit/domain/solver/fixtures.js';

const network = networkByName('devnet')!;
const SOLVER = {
  name: 'http-test',
  address: '0x00000000000000000000000000000000000000AB' as Address,
};

/** Opposite WETH/DUSD orders (one of them half filled already) and DDAI routed through WETH. */
const solverOrders: SolverOrder[] = [
  order(1, {
    sellToken: WETH,
    buyToken: DUSD,
    sellAmount: 10n * E18,
    buyAmount: 28_000n * E18,
    partiallyFillable: true,
    executedSell: 5n * E18,
    executedBuy: 15_000n * E18,
  }),
  order(2, {
    sellToken: DUSD,
    buyToken: WETH,
    sellAmount: 3000n * E18,
    buyAmount: (99n * E18) / 100n,
  }),
  order(3, {
    sellToken: DDAI,
    buyToken: WETH,
    sellAmount: 3000n * E18,
    buyAmount: (9n * E18) / 10n,
  }),
];

/** The order as `GET /api/v1/auction` shows it. */
function auctionOrderOf(o: SolverOrder): AuctionOrder {
  return {
    uid: o.uid,
    owner: o.owner,
    sellToken: o.sellToken,
    buyToken: o.buyToken,
    receiver: null,
    sellAmount: o.sellAmount.toString(),
    buyAmount: o.buyAmount.toString(),
    validTo: 2_000_000_000,
    appData: `0x${'00'.repeat(32)}`,
    feeAmount: '0',
    kind: o.kind,
    partiallyFillable: o.partiallyFillable,
    sellTokenBalance: 'erc20',
    buyTokenBalance: 'erc20',
    created: 1_700_000_000,
    executed: (o.kind === 'sell' ? o.executedSell : o.executedBuy).toString(),
    preInteractions: [],
    postInteractions: [],
    class: 'limit',
    signingScheme: 'eip712',
    signature: `0x${'11'.repeat(65)}`,
    protocolFees: [],
  };
}

function round(deadlineInMs = 10_000, orders = solverOrders): SolverRound {
  return {
    network,
    auctionId: 7,
    block: 1234,
    deadline: new Date(Date.now() + deadlineInMs),
    orders: orders.map(auctionOrderOf),
    prices: Object.fromEntries([...devnetPrices].map(([token, price]) => [token, String(price)])),
    auction: auction(orders, [devnetPool, ddaiPool], 7),
  };
}

const never = () => new AbortController().signal;

/** How `promise` rejected; fails the test when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(Error);
    return error as Error;
  }
  expect.fail('expected a rejection');
}

describe('external solver over HTTP', () => {
  const servers: { close(): Promise<void> }[] = [];
  async function server(options?: Parameters<typeof startSolverServer>[0]): Promise<SolverServer> {
    const started = await startSolverServer(options);
    servers.push(started);
    return started;
  }
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it("answers with the built-in solver's solutions for the same auction", async () => {
    const { url } = await server();
    const r = round();
    const proposed = await createExternalSolver({ ...SOLVER, url }).solve(r, never());

    const expected = solve(r.auction);
    expect(expected.length).to.be.above(0);
    expect(expected.some((s) => s.swaps.length > 0)).to.equal(true);
    expect(proposed.map((p) => ({ prices: p.clearingPrices, trades: p.trades }))).to.deep.equal(
      expected.map((s) => ({ prices: s.clearingPrices, trades: s.trades })),
    );
    expect(proposed.map((p) => p.interactions)).to.deep.equal(
      expected.map((s) => swapInteractions(s.swaps, r.auction.pools, network.settlementContract)),
    );
    for (const p of proposed) {
      expect(p.solver).to.equal('http-test');
      expect(p.solverAddress).to.equal(SOLVER.address.toLowerCase());
    }
  });

  it('sends every order with both executed amounts, the token prices and the pools', async () => {
    const solverServer = await server();
    const r = round();
    await createExternalSolver({ ...SOLVER, url: solverServer.url }).solve(r, never());

    expect(solverServer.requests).to.have.length(1);
    const request = solverServer.requests[0]!;
    expect(request).to.deep.include({
      id: 7,
      network: 'devnet',
      chainId: 31337,
      block: 1234,
      deadline: r.deadline.toISOString(),
      settlementContract: network.settlementContract,
      wrappedNativeToken: WETH,
    });
    expect(request.orders).to.deep.equal(
      solverOrders.map((o) => ({
        ...auctionOrderOf(o),
        executedSell: o.executedSell.toString(),
        executedBuy: o.executedBuy.toString(),
      })),
    );
    expect(request.orders[0]).to.include({ executedSell: String(5n * E18) });
    expect(request.orders[0]).to.include({ executedBuy: String(15_000n * E18) });
    expect(request.tokens).to.deep.equal({
      [WETH]: { price: String(E18) },
      [DUSD]: { price: String(E18 / 3000n) },
      [DDAI]: { price: String(E18 / 3000n) },
    });
    expect(request.liquidity).to.deep.equal([
      {
        kind: 'constantProduct',
        address: devnetPool.address,
        tokens: [DUSD, WETH],
        reserves: [String(3_000_000n * E18), String(1000n * E18)],
        fee: '0.003',
      },
      {
        kind: 'constantProduct',
        address: ddaiPool.address,
        tokens: [WETH, DDAI],
        reserves: [String(1000n * E18), String(3_000_000n * E18)],
        fee: '0.003',
      },
    ]);
    // What a solver reads back is the round's own solver auction.
    expect(solverAuctionOf(request)).to.deep.equal(r.auction);
  });

  it('rejects promptly when the solver does not answer by the deadline', async () => {
    const { url, requests } = await server({ silent: true });
    const r = round(300);
    const error = await rejection(createExternalSolver({ ...SOLVER, url }).solve(r, never()));
    expect(Date.now()).to.be.below(r.deadline.getTime() + 1000);
    expect(error.message).to.equal(
      `solver http-test did not answer by the deadline (${r.deadline.toISOString()})`,
    );
    expect(requests).to.have.length(1);
  });

  it('rejects at once when the round is aborted, before or while asking', async () => {
    const { url } = await server();
    const solver = createExternalSolver({ ...SOLVER, url });
    const before = await rejection(solver.solve(round(), AbortSignal.abort()));
    expect(before.message).to.match(/^solver http-test was cut off: the round was aborted/);

    const controller = new AbortController();
    const hanging = await server({
      respond: () => {
        controller.abort();
        return new Promise(() => {});
      },
    });
    const started = Date.now();
    const during = await rejection(
      createExternalSolver({ ...SOLVER, url: hanging.url }).solve(round(), controller.signal),
    );
    expect(during.message).to.match(/the round was aborted/);
    expect(Date.now() - started).to.be.below(1000);
  });

  it('rejects a non-2xx answer, quoting its status and the start of its body', async () => {
    const { url } = await server({
      status: 503,
      respond: () => `overloaded, come back later ${'x'.repeat(5000)}`,
    });
    const error = await rejection(createExternalSolver({ ...SOLVER, url }).solve(round(), never()));
    expect(error.message).to.match(/^solver http-test answered HTTP 503: overloaded, come back/);
    expect(error.message.length).to.be.below(300);
  });

  it('rejects an answer that is not JSON', async () => {
    const { url } = await server({ respond: () => '{"solutions": [' });
    const error = await rejection(createExternalSolver({ ...SOLVER, url }).solve(round(), never()));
    expect(error.message).to.match(/^solver http-test answered invalid JSON: /);
  });

  describe('rejects an answer the schema refuses, naming the field', () => {
    const valid = (request: SolveRequest) => builtinAnswer(request).solutions[0]!;
    const cases: [string, (request: SolveRequest) => unknown, RegExp][] = [
      ['no solutions', () => ({ answers: [] }), /\/solutions is required/],
      [
        'a trade of something that is not an order uid',
        (request) => ({
          solutions: [{ ...valid(request), trades: [{ order: '0x1234', executedAmount: '1' }] }],
        }),
        /\/solutions\/0\/trades\/0\/order must match pattern/,
      ],
      [
        'a price that is not a decimal',
        (request) => ({ solutions: [{ ...valid(request), prices: { [WETH]: '1e18' } }] }),
        new RegExp(`/solutions/0/prices/${WETH} must match pattern`),
      ],
      [
        'a price keyed by something that is not an address',
        (request) => ({ solutions: [{ ...valid(request), prices: { WETH: '1' } }] }),
        /\/solutions\/0\/prices key "WETH" must match pattern/,
      ],
      [
        'an executed amount above uint256',
        (request) => ({
          solutions: [
            { ...valid(request), trades: [{ order: uid(1), executedAmount: String(1n << 256n) }] },
          ],
        }),
        /\/solutions\/0\/trades\/0\/executedAmount exceeds uint256/,
      ],
      [
        'an interaction without calldata',
        (request) => ({
          solutions: [{ ...valid(request), interactions: [{ target: WETH, value: '0' }] }],
        }),
        /\/solutions\/0\/interactions\/0\/callData is required/,
      ],
      [
        'an unknown field in a solution',
        (request) => ({ solutions: [{ ...valid(request), score: '1' }] }),
        /\/solutions\/0 must NOT have additional properties/,
      ],
    ];
    for (const [what, respond, message] of cases) {
      it(what, async () => {
        const { url } = await server({ respond });
        const error = await rejection(
          createExternalSolver({ ...SOLVER, url }).solve(round(), never()),
        );
        expect(error.message).to.match(/^solver http-test answered an invalid SolveResponse: /);
        expect(error.message).to.match(message);
      });
    }
  });

  it('takes unknown top-level fields and missing interactions, and lowercases addresses', async () => {
    const upper = `0x${'AB'.repeat(20)}`;
    const { url } = await server({
      respond: () => ({
        version: 2,
        solutions: [
          {
            prices: { [WETH.toUpperCase().replace('0X', '0x')]: '3' },
            trades: [{ order: uid(2).slice(2).toUpperCase(), executedAmount: '0042' }],
          },
          {
            prices: {},
            trades: [],
            interactions: [{ target: upper, value: '7', callData: '0xAB' }],
          },
        ],
      }),
    });
    const [first, second] = await createExternalSolver({ ...SOLVER, url }).solve(round(), never());
    expect(first!.clearingPrices).to.deep.equal(new Map([[WETH, 3n]]));
    expect(first!.trades).to.deep.equal([{ uid: uid(2), executedAmount: 42n }]);
    expect(first!.interactions).to.deep.equal([]);
    expect(second!.interactions).to.deep.equal([
      { target: upper.toLowerCase(), value: '7', callData: '0xab' },
    ]);
  });

  it('refuses an answer longer than the limit, declared or streamed, without reading it all', async () => {
    const { url } = await server({
      respond: (request) => ({ ...builtinAnswer(request), padding: 'x'.repeat(10_000) }),
    });
    const declared = await rejection(
      createExternalSolver({ ...SOLVER, url }, { maxResponseBytes: 4096 }).solve(round(), never()),
    );
    expect(declared.message).to.equal(
      'solver http-test answered more than the limit of 4096 bytes',
    );

    // No content-length: chunks keep coming until the client hangs up.
    let sent = 0;
    let hangUp: () => void;
    const hungUp = new Promise<void>((resolve) => (hangUp = resolve));
    const endless = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"solutions": [], "padding": "');
      const more = () => {
        while (!res.destroyed && res.write('x'.repeat(16_384))) sent += 16_384;
        if (!res.destroyed) res.once('drain', more);
      };
      res.on('close', () => hangUp());
      more();
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    servers.push({
      close: () =>
        new Promise<void>((resolve) => {
          endless.close(() => resolve());
          endless.closeAllConnections();
        }),
    });
    const port = (endless.address() as AddressInfo).port;
    const streamed = await rejection(
      createExternalSolver(
        { ...SOLVER, url: `http://127.0.0.1:${port}/` },
        { maxResponseBytes: 100_000 },
      ).solve(round(), never()),
    );
    expect(streamed.message).to.equal(
      'solver http-test answered more than the limit of 100000 bytes',
    );
    // The client hung up: the server stopped with what the socket buffers held.
    await hungUp;
    expect(sent).to.be.below(10_000_000);
  });

  it('rejects when nothing listens at the URL', async () => {
    const closed = await server();
    await closed.close();
    const error = await rejection(
      createExternalSolver({ ...SOLVER, url: closed.url }).solve(round(), never()),
    );
    expect(error.message).to.match(/^solver http-test is unreachable \(http:\/\/127\.0\.0\.1:/);
    expect(error.message).to.match(/ECONNREFUSED/);
  });

  it('never throws synchronously; refuses a URL that is not http(s) when created', async () => {
    const solver = createExternalSolver({ ...SOLVER, url: 'http://127.0.0.1:9/' });
    // An order the round's solver auction lacks: the request cannot be built.
    const broken = { ...round(), orders: [auctionOrderOf({ ...solverOrders[2]!, uid: uid(9) })] };
    let pending: Promise<unknown> | undefined;
    expect(() => (pending = solver.solve(broken, never()))).to.not.throw();
    const error = await rejection(pending!);
    expect(error.message).to.match(/has no solver order/);

    expect(() => createExternalSolver({ ...SOLVER, url: 'ftp://example.org/' })).to.throw(
      /not http\(s\)/,
    );
    expect(() => createExternalSolver({ ...SOLVER, url: 'nope' })).to.throw(/not http\(s\)/);
  });
});
