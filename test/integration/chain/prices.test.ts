/**
 * Prices from the devnet's Uniswap V2 pools, checked against the real `UniswapV2Router02`: the
 * estimator must give exactly what the router computes and what a swap through it delivers. And
 * the local chain that plays mainnet holds its pools where mainnet's registry looks for them.
 */
import { createRequire } from 'node:module';
import { expect } from 'chai';
import {
  Contract,
  Interface,
  type InterfaceAbi,
  type JsonRpcProvider,
  MaxUint256,
  concat,
  getCreate2Address,
  keccak256,
  parseEther,
  parseUnits,
  solidityPacked,
} from 'ethers';
import { sendFromNode } from '../../../src/chain/devnet/node-client.js';
import {
  NATIVE_PRICE_AMOUNT,
  createPriceEstimator,
  type PriceEstimator,
  type PriceQuery,
} from '../../../src/chain/prices.js';
import { createChainRpc, type ChainRpc } from '../../../src/chain/rpc.js';
import { routeGas } from '../../../src/domain/amm.js';
import type { Address } from '../../../src/domain/events.js';
import {
  DEVNET_UNISWAP_V2_FACTORY,
  networkByName,
  type UniswapV2Deployment,
} from '../../../src/domain/networks.js';
import { sharedTestChain, startTestChain, type TestChain } from '../../support/chain.js';

const require = createRequire(import.meta.url);
const artifact = (path: string) => require(path) as { abi: InterfaceAbi; bytecode: string };
const ROUTER_ARTIFACT = artifact('@uniswap/v2-periphery/build/UniswapV2Router02.json');
const ROUTER = new Interface(ROUTER_ARTIFACT.abi);
const FACTORY = new Interface(artifact('@uniswap/v2-core/build/UniswapV2Factory.json').abi);
const PAIR = new Interface(artifact('@uniswap/v2-core/build/UniswapV2Pair.json').abi);
const ERC20 = new Interface([
  'function balanceOf(address) view returns (uint256)',
  'function approve(address, uint256) returns (bool)',
]);
/** Mainnet's, hard-coded in `UniswapV2Library.pairFor`, which the router uses. */
const PAIR_INIT_CODE_HASH = '0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f';
const DEADLINE = 2n ** 32n;
/**
 * Not the node's estimate: made in the second the pools were last updated, it leaves out the
 * price accumulators a pair also writes when the swap lands in a later second, and runs out.
 */
const SWAP_GAS = 500_000n;
const E18 = 10n ** 18n;

const devnet = networkByName('devnet')!;

/** A ChainRpc that also records every JSON-RPC request the estimator sends through it. */
function recording(rpc: ChainRpc): {
  rpc: ChainRpc;
  sent: { method: string; params: unknown[] }[];
} {
  const sent: { method: string; params: unknown[] }[] = [];
  const request: ChainRpc['request'] = (what, run) =>
    rpc.request(what, (provider) =>
      run({
        send: (method: string, params: unknown[]) => {
          sent.push({ method, params });
          return provider.send(method, params);
        },
      } as JsonRpcProvider),
    );
  return { rpc: { ...rpc, request }, sent };
}

describe('chain: prices from the devnet pools', function () {
  this.timeout(60_000);
  let chain: TestChain;
  let rpc: ChainRpc;
  let estimator: PriceEstimator;
  let router: Address;
  let snapshot: string;

  before(async () => {
    chain = await startTestChain();
    rpc = createChainRpc(devnet, chain.rpcUrl);
    const { weth, deployer } = chain.deployment;
    const data = concat([
      `0x${ROUTER_ARTIFACT.bytecode.replace(/^0x/, '')}`,
      ROUTER.encodeDeploy([DEVNET_UNISWAP_V2_FACTORY, weth.address]),
    ]);
    router = (await sendFromNode(chain.provider, { from: deployer.address, data }))!;
    for (const token of [weth, ...chain.deployment.tokens]) {
      const approve = ERC20.encodeFunctionData('approve', [router, MaxUint256]);
      await sendFromNode(chain.provider, { from: trader(), to: token.address, data: approve });
    }
  });
  after(async () => {
    rpc?.close();
    await chain?.stop();
  });
  // Each test starts from the pools as deployed, with an estimator that has seen no block: after
  // a revert the next block has a number an earlier test's estimator already cached.
  beforeEach(async () => {
    snapshot = await chain.snapshot();
    estimator = createPriceEstimator(rpc, devnet);
  });
  afterEach(async () => {
    await chain.revert(snapshot);
  });

  const trader = () => chain.deployment.accounts[0]!.address;
  const token = (symbol: string): Address => {
    const { weth, tokens } = chain.deployment;
    const found = [weth, ...tokens].find((t) => t.symbol === symbol);
    if (!found) throw new Error(`no ${symbol} on the devnet`);
    return found.address;
  };
  const read = async (to: Address, abi: Interface, fn: string, args: unknown[] = []) =>
    new Contract(to, abi, chain.provider).getFunction(fn)(...args);
  const balance = (tokenAddress: Address, owner: Address): Promise<bigint> =>
    read(tokenAddress, ERC20, 'balanceOf', [owner]);
  const amountsOut = async (amount: bigint, path: Address[]): Promise<bigint[]> =>
    [...(await read(router, ROUTER, 'getAmountsOut', [amount, path]))] as bigint[];
  const amountsIn = async (amount: bigint, path: Address[]): Promise<bigint[]> =>
    [...(await read(router, ROUTER, 'getAmountsIn', [amount, path]))] as bigint[];
  const swap = (fn: string, args: unknown[]) =>
    sendFromNode(chain.provider, {
      from: trader(),
      to: router,
      data: ROUTER.encodeFunctionData(fn, [...args, trader(), DEADLINE]),
      gas: SWAP_GAS,
    });
  const reserves = async (pair: Address): Promise<[bigint, bigint]> => {
    const [reserve0, reserve1] = await read(pair, PAIR, 'getReserves');
    return [reserve0, reserve1];
  };
  /** The native price the reserves imply, figured here from the pool formula directly. */
  const expectedNativePrice = (tokenReserve: bigint, wethReserve: bigint) => {
    const sellAmount =
      (tokenReserve * NATIVE_PRICE_AMOUNT * 1000n) / ((wethReserve - NATIVE_PRICE_AMOUNT) * 997n) +
      1n;
    return Number(NATIVE_PRICE_AMOUNT) / Number(sellAmount);
  };

  describe('the pools', () => {
    it('puts the real factory at the devnet network’s address', async () => {
      expect(chain.deployment.uniswapV2Factory).to.equal(DEVNET_UNISWAP_V2_FACTORY);
      expect(devnet.uniswapV2.map((d) => d.factory)).to.deep.equal([DEVNET_UNISWAP_V2_FACTORY]);
      expect(await read(DEVNET_UNISWAP_V2_FACTORY, FACTORY, 'allPairsLength')).to.equal(4n);
      expect(
        (await read(DEVNET_UNISWAP_V2_FACTORY, FACTORY, 'feeToSetter')).toLowerCase(),
      ).to.equal(chain.deployment.deployer.address);
    });

    it('funds WETH/DUSD, WETH/DCOW, WETH/DDAI and DUSD/DCOW at their intended prices', async () => {
      const intended: [string, string, bigint, bigint][] = [
        ['WETH', 'DUSD', 1000n, 3_000_000n],
        ['WETH', 'DCOW', 1000n, 10_000_000n],
        ['WETH', 'DDAI', 1000n, 3_000_000n],
        ['DUSD', 'DCOW', 30_000n, 100_000n],
      ];
      expect(chain.deployment.pools).to.have.length(intended.length);
      for (const [a, b, amountA, amountB] of intended) {
        const [token0, token1] = [token(a), token(b)].sort();
        const address = getCreate2Address(
          DEVNET_UNISWAP_V2_FACTORY,
          keccak256(solidityPacked(['address', 'address'], [token0, token1])),
          PAIR_INIT_CODE_HASH,
        ).toLowerCase();
        expect(chain.deployment.pools, `${a}/${b}`).to.deep.include({ token0, token1, address });
        const byToken = new Map([
          [token(a), amountA * E18],
          [token(b), amountB * E18],
        ]);
        const pair = address as Address;
        expect(await reserves(pair), `${a}/${b}`).to.deep.equal([
          byToken.get(token0!),
          byToken.get(token1!),
        ]);
      }
      const noPair = await read(DEVNET_UNISWAP_V2_FACTORY, FACTORY, 'getPair', [
        token('DUSD'),
        token('DDAI'),
      ]);
      expect(BigInt(noPair)).to.equal(0n);
    });
  });

  describe('estimates', () => {
    const cases: [string, string[], 'sell' | 'buy', bigint][] = [
      ['a direct sell', ['DUSD', 'WETH'], 'sell', parseUnits('4500')],
      ['a direct buy', ['WETH', 'DCOW'], 'buy', parseUnits('25000')],
      ['a sell through WETH', ['DUSD', 'WETH', 'DDAI'], 'sell', parseUnits('12345.678')],
      ['a buy through WETH', ['DUSD', 'WETH', 'DDAI'], 'buy', parseUnits('777')],
      ['a small sell on the direct DUSD/DCOW pool', ['DUSD', 'DCOW'], 'sell', parseUnits('10')],
      [
        'a large sell of DUSD for DCOW through WETH',
        ['DUSD', 'WETH', 'DCOW'],
        'sell',
        parseUnits('20000'),
      ],
      [
        'a large buy of DCOW for DUSD through WETH',
        ['DUSD', 'WETH', 'DCOW'],
        'buy',
        parseUnits('90000'),
      ],
    ];

    for (const [name, symbols, kind, amount] of cases) {
      it(`matches the router for ${name}, and a swap delivers it`, async () => {
        const path = symbols.map(token);
        const query: PriceQuery = { sellToken: path[0]!, buyToken: path.at(-1)!, kind, amount };
        const estimate = (await estimator.estimate(query))!;
        expect(estimate.path).to.deep.equal(path);
        expect(estimate.gas).to.equal(routeGas(path.length - 1));

        const [sellToken, buyToken] = [path[0]!, path.at(-1)!];
        const [sold, bought] = [
          await balance(sellToken, trader()),
          await balance(buyToken, trader()),
        ];
        if (kind === 'sell') {
          expect(estimate.amount).to.equal((await amountsOut(amount, path)).at(-1));
          await swap('swapExactTokensForTokens', [amount, estimate.amount, path]);
          expect((await balance(buyToken, trader())) - bought).to.equal(estimate.amount);
          expect(sold - (await balance(sellToken, trader()))).to.equal(amount);
        } else {
          expect(estimate.amount).to.equal((await amountsIn(amount, path))[0]);
          await swap('swapTokensForExactTokens', [amount, estimate.amount, path]);
          expect(sold - (await balance(sellToken, trader()))).to.equal(estimate.amount);
          expect((await balance(buyToken, trader())) - bought).to.equal(amount);
        }
      });
    }

    it('finds no route without pools, past the reserves, for nothing, or for the same token', async () => {
      const unknown = '0x000000000000000000000000000000000000dead' as Address;
      const none = [
        { sellToken: unknown, buyToken: token('DUSD'), kind: 'sell', amount: E18 },
        { sellToken: token('DUSD'), buyToken: unknown, kind: 'buy', amount: E18 },
        // The WETH/DUSD pool holds 1,000 WETH: no amount of DUSD buys them all.
        {
          sellToken: token('DUSD'),
          buyToken: token('WETH'),
          kind: 'buy',
          amount: parseEther('1000'),
        },
        { sellToken: token('DUSD'), buyToken: token('WETH'), kind: 'sell', amount: 0n },
        // One atom of DUSD is worth less than an atom of WETH: the pool gives nothing for it.
        { sellToken: token('DUSD'), buyToken: token('WETH'), kind: 'sell', amount: 1n },
        { sellToken: token('DUSD'), buyToken: token('DUSD'), kind: 'sell', amount: E18 },
      ] as const;
      for (const query of none) {
        const what = `${query.kind} ${query.amount} ${query.sellToken} → ${query.buyToken}`;
        expect(await estimator.estimate(query), what).to.equal(null);
      }
      expect(await estimator.nativePrice(unknown)).to.equal(null);
    });

    it('reads all of one estimate at one block', async () => {
      const recorder = recording(rpc);
      const recorded = createPriceEstimator(recorder.rpc, devnet);
      const query: PriceQuery = {
        sellToken: token('DUSD'),
        buyToken: token('DDAI'),
        kind: 'sell',
        amount: E18,
      };
      await recorded.estimate(query);
      const [first, ...calls] = recorder.sent;
      expect(first!.method).to.equal('eth_blockNumber');
      const tag = `0x${(await chain.provider.getBlockNumber()).toString(16)}`;
      // getPair of the three pairs (DUSD/DDAI has none), getReserves of the two there are.
      expect(calls.map((c) => c.method)).to.deep.equal(Array(5).fill('eth_call'));
      for (const call of calls) expect(call.params[1]).to.equal(tag);
    });
  });

  describe('native prices', () => {
    it('prices WETH at 1 and DUSD from the WETH/DUSD reserves', async () => {
      expect(await estimator.nativePrice(token('WETH'))).to.equal(1);
      const price = (await estimator.nativePrice(token('DUSD')))!;
      expect(price).to.equal(expectedNativePrice(3_000_000n * E18, 1000n * E18));
      expect(price).to.be.closeTo(1 / 3000, (1 / 3000) * 0.005);
      const dcow = (await estimator.nativePrice(token('DCOW')))!;
      expect(dcow).to.equal(expectedNativePrice(10_000_000n * E18, 1000n * E18));
    });

    it('answers at a named block as that block’s state was, asking the node no block number', async () => {
      const recorder = recording(rpc);
      const pinned = createPriceEstimator(recorder.rpc, devnet);
      const dusd = token('DUSD');
      const block = await pinned.blockNumber();
      const before = (await pinned.nativePrice(dusd, block))!;
      await swap('swapExactTokensForTokens', [parseUnits('300000'), 0n, [dusd, token('WETH')]]);
      recorder.sent.length = 0;
      const fresh = createPriceEstimator(recorder.rpc, devnet);
      expect(await fresh.nativePrice(dusd, block)).to.equal(before);
      expect(recorder.sent.map((s) => s.method)).not.to.include('eth_blockNumber');
      expect(recorder.sent.every((s) => s.params[1] === `0x${block.toString(16)}`)).to.equal(true);
      expect(await fresh.nativePrice(dusd)).to.be.lessThan(before);
      // The block asked about first is still kept beside the current one.
      recorder.sent.length = 0;
      expect(await fresh.nativePrice(dusd, block)).to.equal(before);
      expect(recorder.sent).to.deep.equal([]);
    });

    it('caches per block and prices anew once a swap moved the reserves', async () => {
      const recorder = recording(rpc);
      const cached = createPriceEstimator(recorder.rpc, devnet);
      const dusd = token('DUSD');
      const before = (await cached.nativePrice(dusd))!;
      recorder.sent.length = 0;
      expect(await cached.nativePrice(dusd)).to.equal(before);
      expect(recorder.sent.map((s) => s.method)).to.deep.equal(['eth_blockNumber']);

      await swap('swapExactTokensForTokens', [parseUnits('300000'), 0n, [dusd, token('WETH')]]);
      const after = (await cached.nativePrice(dusd))!;
      // Selling DUSD into the pool made it cheaper.
      expect(after).to.be.lessThan(before);
      // DUSD's address sorts before WETH's: it is the pair's token0.
      const weth = token('WETH');
      const pool = chain.deployment.pools.find((p) => p.token0 === dusd && p.token1 === weth)!;
      const [dusdReserve, wethReserve] = await reserves(pool.address);
      expect(after).to.equal(expectedNativePrice(dusdReserve, wethReserve));
    });
  });

  it('reads the gas price from the node once a block, and names the block it reads at', async () => {
    const recorder = recording(rpc);
    const cached = createPriceEstimator(recorder.rpc, devnet);
    const asked = () => recorder.sent.filter((s) => s.method === 'eth_gasPrice').length;
    const price = await cached.gasPrice();
    expect(price).to.equal(BigInt(await chain.provider.send('eth_gasPrice', [])));
    expect(await Promise.all([cached.gasPrice(), cached.gasPrice()])).to.deep.equal([price, price]);
    expect(asked()).to.equal(1);
    expect(await cached.blockNumber()).to.equal(await chain.provider.getBlockNumber());

    await chain.provider.send('evm_mine', []);
    await cached.gasPrice();
    expect(asked()).to.equal(2);
    expect(await cached.blockNumber()).to.equal(await chain.provider.getBlockNumber());
  });
});

describe('chain: prices on a local chain that plays mainnet', function () {
  this.timeout(60_000);
  const mainnet = networkByName('mainnet')!;

  it('finds its pools through mainnet’s Uniswap V2 factory and router, as on a fork of mainnet', async () => {
    const chain = await sharedTestChain(1);
    const [{ factory, router }] = mainnet.uniswapV2 as [UniswapV2Deployment];
    expect(chain.deployment).to.include({ uniswapV2Factory: factory, uniswapV2Router: router });
    const weth = chain.deployment.weth.address;
    const dusd = chain.deployment.tokens.find((t) => t.symbol === 'DUSD')!.address;
    const rpc = createChainRpc(mainnet, chain.rpcUrl);
    try {
      const estimator = createPriceEstimator(rpc, mainnet);
      const amount = parseEther('1');
      const estimate = await estimator.estimate({
        sellToken: weth,
        buyToken: dusd,
        kind: 'sell',
        amount,
      });
      const routed = new Contract(router, ROUTER, chain.provider).getFunction('getAmountsOut');
      const [, out] = (await routed(amount, [weth, dusd])) as bigint[];
      expect(estimate).to.deep.include({ amount: out, path: [weth, dusd] });
      const [token0, token1] = [weth, dusd].sort();
      const pair = getCreate2Address(
        factory,
        keccak256(solidityPacked(['address', 'address'], [token0, token1])),
        PAIR_INIT_CODE_HASH,
      ).toLowerCase();
      const pools = await estimator.pools([weth, dusd]);
      expect(pools.map((p) => [p.address, p.router])).to.deep.equal([[pair, router]]);
    } finally {
      rpc.close();
    }
  });
});
