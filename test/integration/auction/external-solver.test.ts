/**
 * A solver engine over real HTTP, speaking the published solver engine API: the auction POSTed
 * to `{url}/solve`, the answer read as leniently as the reference driver reads it and refused
 * whole where it breaks the API, within the deadline and a size bound; feedback POSTed to
 * `{url}/notify`, never waited for.
 */
import { expect } from 'chai';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBuiltinSolver } from '../../../src/auction/builtin-solver.js';
import { createExternalSolver, endpoint } from '../../../src/auction/external-solver.js';
import { auctionFor } from '../../../src/auction/solver-api/auction.js';
import type { Auction } from '../../../src/auction/solver-api/types.js';
import { SolverFailure } from '../../../src/auction/solver.js';
import type { Address, AuctionOrder } from '../../../src/domain/events.js';
import type { OrderTerms } from '../../../src/domain/order-terms.js';
import { createLogger } from '../../../src/logger.js';
import {
  builtinAnswer,
  startSolverServer,
  type SolverServer,
} from '../../support/solver-server.js';
import { auctionOrder } from '../../support/auction-orders.js';
import { waitFor } from '../../support/wait.js';
import {
  DDAI,
  DUSD,
  E18,
  WETH,
  ddaiPool,
  devnetPool,
  devnetPrices,
  order,
  uid,
} from '../../unit/domain/solver/fixtures.js';

const logger = createLogger('silent');
const SOLVER = {
  name: 'http-test',
  address: '0x00000000000000000000000000000000000000AB' as Address,
  quote: false,
};
const ROUTER: Address = '0x00000000000000000000000000000000000000e1';

/** Opposite WETH/DUSD orders (one of them half filled already) and DDAI routed through WETH. */
const terms: OrderTerms[] = [
  order(1, {
    sellToken: WETH,
    buyToken: DUSD,
    sellAmount: 10n * E18,
    buyAmount: 28_000n * E18,
    partiallyFillable: true,
    executed: 5n * E18,
  }),
  order(2, { sellToken: DUSD, buyToken: WETH, sellAmount: 3000n * E18, buyAmount: E18 / 2n }),
  order(3, { sellToken: DDAI, buyToken: WETH, sellAmount: 3000n * E18, buyAmount: E18 / 2n }),
];

/** The order as an auction holds it. */
const auctionOrderOf = (o: OrderTerms): AuctionOrder =>
  auctionOrder(0, {
    uid: o.uid,
    owner: o.owner,
    sellToken: o.sellToken,
    buyToken: o.buyToken,
    sellAmount: o.sellAmount.toString(),
    buyAmount: o.buyAmount.toString(),
    kind: o.kind,
    partiallyFillable: o.partiallyFillable,
    executed: o.executed.toString(),
  });

function auction(deadlineInMs = 10_000): Auction {
  const facts = { decimals: 18, symbol: null, availableBalance: 0n };
  return auctionFor({
    id: 7,
    deadline: new Date(Date.now() + deadlineInMs),
    orders: terms.map(auctionOrderOf),
    referencePrices: Object.fromEntries(
      [...devnetPrices].map(([token, price]) => [token, String(price)]),
    ),
    tokens: new Map([WETH, DUSD, DDAI].map((token) => [token, facts])),
    trusted: new Set([WETH]),
    liquidity: [devnetPool, ddaiPool].map((pool, i) => ({
      id: String(i),
      pool: { ...pool, router: ROUTER },
    })),
    effectiveGasPrice: 10n ** 9n,
    wrappedNative: WETH,
  });
}

const never = () => new AbortController().signal;

/** How `promise` rejected; fails the test when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<SolverFailure> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(SolverFailure);
    return error as SolverFailure;
  }
  expect.fail('expected a rejection');
}

describe('external solver engine over HTTP', () => {
  const servers: { close(): Promise<void> }[] = [];
  async function server(options?: Parameters<typeof startSolverServer>[0]): Promise<SolverServer> {
    const started = await startSolverServer(options);
    servers.push(started);
    return started;
  }
  const engine = (url: string, options = {}) =>
    createExternalSolver({ ...SOLVER, url }, { logger, ...options });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('POSTs the auction to {url}/solve and reads the same answer the engine computed', async () => {
    const { url, requests } = await server();
    const sent = auction();
    const answer = await engine(url).solve(sent, never());
    expect(requests).to.deep.equal([JSON.parse(JSON.stringify(sent))]);
    const builtin = createBuiltinSolver(SOLVER.address, WETH, { slippageBps: 0n });
    const inProcess = await builtin.solve(sent, never());
    expect(answer).to.deep.equal(inProcess);
    expect('solutions' in answer && answer.solutions.length).to.be.greaterThan(0);
  });

  it('joins solve and notify onto the base URL as the reference driver does', () => {
    const at = (base: string, path: string) => endpoint(new URL(base), path).href;
    expect(at('http://127.0.0.1:7872', 'solve')).to.equal('http://127.0.0.1:7872/solve');
    expect(at('http://127.0.0.1:7872/', 'notify')).to.equal('http://127.0.0.1:7872/notify');
    expect(at('http://solver.example/engines/a', 'solve')).to.equal(
      'http://solver.example/engines/a/solve',
    );
  });

  it('times out when the engine does not answer by the deadline', async () => {
    const { url, requests } = await server({ silent: true });
    const sent = auction(300);
    const error = await rejection(engine(url).solve(sent, never()));
    expect(Date.now()).to.be.below(Date.parse(sent.deadline) + 1000);
    expect(error.kind).to.equal('timeout');
    expect(error.message).to.equal(
      `solver http-test did not answer by the deadline (${sent.deadline})`,
    );
    expect(requests).to.have.length(1);
  });

  it('gives up at once when the round is aborted, before or while asking', async () => {
    const { url } = await server();
    const before = await rejection(engine(url).solve(auction(), AbortSignal.abort()));
    expect(before.message).to.match(/^solver http-test was cut off: the round was aborted/);
    expect(before.kind).to.equal('error');

    const controller = new AbortController();
    const hanging = await server({
      respond: () => {
        controller.abort();
        return new Promise(() => {});
      },
    });
    const started = Date.now();
    const during = await rejection(engine(hanging.url).solve(auction(), controller.signal));
    expect(during.message).to.match(/the round was aborted/);
    expect(Date.now() - started).to.be.below(1000);
  });

  it('refuses a non-2xx answer, quoting its status and the start of its body', async () => {
    const { url } = await server({
      status: 503,
      respond: () => `overloaded, come back later ${'x'.repeat(5000)}`,
    });
    const error = await rejection(engine(url).solve(auction(), never()));
    expect(error.message).to.match(/^solver http-test answered HTTP 503: overloaded, come back/);
    expect(error.message.length).to.be.below(300);
  });

  it('refuses an answer that is not JSON', async () => {
    const { url } = await server({ respond: () => '{"solutions": [' });
    const error = await rejection(engine(url).solve(auction(), never()));
    expect(error.message).to.match(/^solver http-test answered invalid JSON: /);
  });

  it('takes an error the engine reports as an answer with no solutions', async () => {
    const { url } = await server({
      respond: () => ({ error: { code: 'insufficientLiquidity', message: 'no route' } }),
    });
    expect(await engine(url).solve(auction(), never())).to.deep.equal({
      error: { code: 'insufficientLiquidity', message: 'no route' },
    });
  });

  describe('refuses, whole, an answer the API does not allow, naming the field', () => {
    const valid = async (sent: Auction) =>
      ((await builtinAnswer(sent)) as { solutions: Record<string, unknown>[] }).solutions[0]!;
    const cases: [string, (sent: Auction) => Promise<unknown>, RegExp][] = [
      ['neither solutions nor an error', async () => ({ answers: [] }), /\/solutions is required/],
      [
        'a trade of something that is not an order uid',
        async (sent) => ({
          solutions: [
            {
              ...(await valid(sent)),
              trades: [{ kind: 'fulfillment', order: '0x1234', executedAmount: '1' }],
            },
          ],
        }),
        /\/solutions\/0\/trades\/0\/order must match pattern/,
      ],
      [
        'a price that is not a number',
        async (sent) => ({ solutions: [{ ...(await valid(sent)), prices: { [WETH]: '1e18' } }] }),
        new RegExp(`/solutions/0/prices/${WETH}`),
      ],
      [
        'a price keyed by something that is not an address',
        async (sent) => ({ solutions: [{ ...(await valid(sent)), prices: { WETH: '1' } }] }),
        /\/solutions\/0\/prices key "WETH" must match pattern/,
      ],
      [
        'an executed amount above uint256',
        async (sent) => ({
          solutions: [
            {
              ...(await valid(sent)),
              trades: [{ kind: 'fulfillment', order: uid(1), executedAmount: String(1n << 256n) }],
            },
          ],
        }),
        /\/solutions\/0\/trades\/0\/executedAmount/,
      ],
      [
        'a custom interaction without calldata',
        async (sent) => ({
          solutions: [
            {
              ...(await valid(sent)),
              interactions: [{ kind: 'custom', target: WETH, value: '0' }],
            },
          ],
        }),
        /\/solutions\/0\/interactions\/0\/callData is required/,
      ],
      [
        'a solution without an id',
        async (sent) => {
          const { id: _, ...rest } = await valid(sent);
          return { solutions: [rest] };
        },
        /\/solutions\/0\/id is required/,
      ],
    ];
    for (const [what, respond, message] of cases) {
      it(what, async () => {
        const { url } = await server({ respond });
        const error = await rejection(engine(url).solve(auction(), never()));
        expect(error.message).to.match(
          /^solver http-test answered what the solver API does not allow: /,
        );
        expect(error.message).to.match(message);
      });
    }
  });

  it('reads what the reference driver reads: hex and integer amounts, any-case addresses, ids as numbers, unknown fields', async () => {
    const upper = `0x${'AB'.repeat(20)}`;
    const { url } = await server({
      respond: () => ({
        version: 2,
        solutions: [
          {
            id: '3',
            score: 'ignored',
            prices: { [WETH.toUpperCase().replace('0X', '0x')]: '0x03', [DUSD]: 5 },
            trades: [
              {
                kind: 'fulfillment',
                order: uid(2).toUpperCase().replace('0X', '0x'),
                executedAmount: '0042',
                fee: '0x1',
              },
            ],
            preInteractions: [
              { kind: 'Call', target: upper, value: '0x0', callData: ['0xab', '0xcd'] },
            ],
            interactions: [
              {
                kind: 'liquidity',
                id: 1,
                inputToken: DDAI,
                outputToken: WETH,
                inputAmount: 10,
                outputAmount: '9',
              },
              {
                kind: 'custom',
                target: upper,
                value: '7',
                callData: '0xAB',
                allowances: [{ token: DUSD, spender: upper, minAmount: '8' }],
              },
            ],
          },
        ],
      }),
    });
    const answer = await engine(url).solve(auction(), never());
    expect(answer).to.deep.equal({
      solutions: [
        {
          id: 3,
          prices: new Map([
            [WETH, 3n],
            [DUSD, 5n],
          ]),
          trades: [{ kind: 'fulfillment', order: uid(2), executedAmount: 42n, fee: 1n }],
          preInteractions: [{ target: upper.toLowerCase(), value: 0n, callData: '0xabcd' }],
          interactions: [
            {
              kind: 'liquidity',
              id: '1',
              inputToken: DDAI,
              outputToken: WETH,
              inputAmount: 10n,
              outputAmount: 9n,
            },
            {
              kind: 'custom',
              target: upper.toLowerCase(),
              value: 7n,
              callData: '0xab',
              allowances: [{ token: DUSD, spender: upper.toLowerCase(), amount: 8n }],
              inputs: [],
              outputs: [],
            },
          ],
          postInteractions: [],
          gas: null,
          unsupported: [],
        },
      ],
    });
  });

  it('names what a solution uses that batchbook does not execute', async () => {
    const { url } = await server({
      respond: () => ({
        solutions: [
          {
            id: 0,
            prices: {},
            trades: [{ kind: 'jit', order: {}, executedAmount: '1' }],
            interactions: [],
            flashloans: { [uid(1)]: {} },
            wrappers: [{ address: WETH, data: '0x' }],
          },
        ],
      }),
    });
    const answer = await engine(url).solve(auction(), never());
    expect('solutions' in answer && answer.solutions[0]!.unsupported).to.deep.equal([
      'JIT trades',
      'flashloans',
      'wrappers',
    ]);
  });

  it('refuses an answer longer than the limit, declared or streamed, without reading it all', async () => {
    const { url } = await server({
      respond: async (sent) => ({
        ...((await builtinAnswer(sent)) as object),
        padding: 'x'.repeat(10_000),
      }),
    });
    const declared = await rejection(
      engine(url, { maxResponseBytes: 4096 }).solve(auction(), never()),
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
      engine(`http://127.0.0.1:${port}/`, { maxResponseBytes: 100_000 }).solve(auction(), never()),
    );
    expect(streamed.message).to.equal(
      'solver http-test answered more than the limit of 100000 bytes',
    );
    // The client hung up: the server stopped with what the socket buffers held.
    await hungUp;
    expect(sent).to.be.below(10_000_000);
  });

  it('fails when nothing listens at the URL', async () => {
    const closed = await server();
    await closed.close();
    const error = await rejection(engine(closed.url).solve(auction(), never()));
    expect(error.message).to.match(/^solver http-test is unreachable \(http:\/\/127\.0\.0\.1:/);
    expect(error.message).to.match(/ECONNREFUSED/);
  });

  it('refuses a URL that is not http(s) when created', () => {
    expect(() => engine('ftp://example.org/')).to.throw(/not http\(s\)/);
    expect(() => engine('nope')).to.throw(/not http\(s\)/);
  });

  it('POSTs feedback to {url}/notify without waiting, whatever the engine answers', async () => {
    const { url, notifications } = await server();
    const solver = engine(url);
    const feedback = { auctionId: '7', solutionId: 2, kind: 'emptySolution' as const };
    expect(solver.notify(feedback)).to.equal(undefined);
    await waitFor(() => notifications.length === 1, { description: 'the notification' });
    expect(notifications).to.deep.equal([feedback]);
    // An engine without the route, or none at all: nothing thrown, nothing waited for.
    const closed = await server();
    await closed.close();
    expect(() => engine(closed.url).notify(feedback)).to.not.throw();
  });
});
