/**
 * Prices from on-chain liquidity: the Uniswap-V2 pairs of the network's factories, read through
 * its RPC and priced with the pool arithmetic of src/domain/amm.ts. Quotes (their amount and gas)
 * and native prices (the token endpoints, quote fees, auction prices) come from here.
 *
 * Every estimate reads its reserves at one block, pinned by one `eth_blockNumber`: the routes it
 * compares and the amount it returns are all of the same chain state; a caller reading several
 * answers of one state names the block. Within a block the reserves, native prices and the gas
 * price are cached (for the last few blocks asked about): the many quotes of one block, and a
 * cut's reads, share them.
 * (The node derives its gas price from the latest block's base fee: asked again within the
 * block, it answers the same.)
 */
import type { Address } from '../domain/events.js';
import type { Network, UniswapV2Deployment } from '../domain/networks.js';
import {
  bestBuyRoute,
  bestSellRoute,
  candidatePaths,
  routesAlong,
  sortTokens,
  type Pool,
  type Route,
  type RouteQuote,
} from '../domain/amm.js';
import { remember } from './remembered-reads.js';
import type { ChainRpc } from './rpc.js';

export interface PriceEstimate {
  /** sell: the buy amount out; buy: the sell amount in. */
  amount: bigint;
  gas: bigint;
  path: readonly Address[];
}

export interface PriceQuery {
  sellToken: Address;
  buyToken: Address;
  kind: 'sell' | 'buy';
  amount: bigint;
}

/**
 * Each answer reads the chain at `block` when one is named (the callers that read several
 * answers of one chain state: a quote, a cut), else at the current block.
 */
export interface PriceEstimator {
  /**
   * The best route for the trade; null when there is none (the API's NoLiquidity): no pools, too
   * little liquidity, a zero amount, or the same token on both sides.
   */
  estimate(query: PriceQuery, block?: number): Promise<PriceEstimate | null>;
  /** Native-token atoms per token atom (the reference's f64 `price` of GET /token/{t}/native_price); 1 for the wrapped native token; null when unpriced. */
  nativePrice(token: Address, block?: number): Promise<number | null>;
  /** The node's `eth_gasPrice` (asked while the block is among the last few asked about), in wei. */
  gasPrice(block?: number): Promise<bigint>;
  /** The current block. */
  blockNumber(): Promise<number>;
  /**
   * The funded pools between any two of `tokens` and the wrapped native token: the liquidity a
   * solver may route through.
   */
  pools(tokens: readonly Address[], block?: number): Promise<OfferedPool[]>;
}

/** A pool and the router that swaps through its pairs: the liquidity solvers are offered. */
export interface OfferedPool extends Pool {
  router: Address;
}

/**
 * A token's native price is what it costs to buy this much wrapped native token with it, as the
 * reference prices tokens (a buy of a fixed native amount): 0.1 of the native token (18 decimals
 * on every network here). Small enough for a shallow pool to quote, large enough that the pools'
 * rounding to whole atoms does not show in the price.
 */
export const NATIVE_PRICE_AMOUNT = 10n ** 17n;

/** Function selectors: `getPair(address,address)` and `getReserves()`. */
const GET_PAIR = '0xe6a43905';
const GET_RESERVES = '0x0902f1ac';
const WORD_DIGITS = 64;

/** The chain state one block number stands for, with what has been read of it. */
interface BlockView {
  number: bigint;
  tag: string;
  /** By `factory/token0/token1`; null where the factory has no funded pair of the two. */
  pools: Map<string, Promise<OfferedPool | null>>;
  nativePrices: Map<Address, Promise<number | null>>;
  /** Null until read, and again after a failed read. */
  gasPrice: Promise<bigint> | null;
}

const lower = (address: Address) => address.toLowerCase() as Address;

/** Blocks whose reads are kept: a cut's, and the current one of the quotes asked meanwhile. */
const VIEWS_KEPT = 4;

/** The `index`th 32-byte word of ABI-encoded return data. */
const word = (data: string, index: number): bigint =>
  BigInt(`0x${data.slice(2 + index * WORD_DIGITS, 2 + (index + 1) * WORD_DIGITS)}`);

const addressWord = (address: Address) => address.slice(2).padStart(WORD_DIGITS, '0');

/** Callers asking while a read is under way share it, rather than each sending their own. */
function shared<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null;
  return () =>
    (pending ??= read().finally(() => {
      pending = null;
    }));
}

export function createPriceEstimator(rpc: ChainRpc, network: Network): PriceEstimator {
  const native = lower(network.wrappedNativeToken);
  const deployments = network.uniswapV2;
  /** By `factory/token0/token1`. Only found pairs: a pair never leaves its address. */
  const pairs = new Map<string, Address>();
  /** By block number, oldest first. */
  const views = new Map<bigint, BlockView>();
  let highest = -1n;

  const call = (what: string, to: Address, data: string, tag: string): Promise<string> =>
    rpc.request(what, (p) => p.send('eth_call', [{ to, data }, tag]));

  // Batched: an order's block read goes to the node with its chain check, in one round trip.
  const blockNumber = shared(() =>
    rpc
      .request('block number', (p) => p.send('eth_blockNumber', []), { batched: true })
      .then(BigInt),
  );

  function viewAt(number: bigint): BlockView {
    let view = views.get(number);
    if (view === undefined) {
      view = {
        number,
        tag: `0x${number.toString(16)}`,
        pools: new Map(),
        nativePrices: new Map(),
        gasPrice: null,
      };
      views.set(number, view);
      if (views.size > VIEWS_KEPT) views.delete(views.keys().next().value!);
    }
    return view;
  }

  async function viewOf(block: number | undefined): Promise<BlockView> {
    if (block !== undefined) return viewAt(BigInt(block));
    const number = await blockNumber();
    // A lower current block is a reorg: what was read of the blocks above it may be gone.
    if (number < highest) views.clear();
    highest = number;
    return viewAt(number);
  }

  async function pairAddress(
    key: string,
    factory: Address,
    token0: Address,
    token1: Address,
    tag: string,
  ): Promise<Address | null> {
    const known = pairs.get(key);
    if (known) return known;
    const data = `${GET_PAIR}${addressWord(token0)}${addressWord(token1)}`;
    const result = await call(`pair of ${token0} and ${token1}`, factory, data, tag);
    // Empty data: no factory at this address (a chain the registry does not describe).
    if (result.length < 2 + WORD_DIGITS) return null;
    const address = `0x${result.slice(-40).toLowerCase()}` as Address;
    if (BigInt(address) === 0n) return null;
    pairs.set(key, address);
    return address;
  }

  async function readPool(
    key: string,
    { factory, router }: UniswapV2Deployment,
    token0: Address,
    token1: Address,
    tag: string,
  ): Promise<OfferedPool | null> {
    const address = await pairAddress(key, factory, token0, token1, tag);
    if (address === null) return null;
    const result = await call(`reserves of ${address}`, address, GET_RESERVES, tag);
    // Empty data: the pair was created after this block.
    if (result.length < 2 + 2 * WORD_DIGITS) return null;
    const [reserve0, reserve1] = [word(result, 0), word(result, 1)];
    if (reserve0 === 0n || reserve1 === 0n) return null;
    return { address, token0, token1, reserve0, reserve1, router };
  }

  /** The funded pools between two tokens, one per factory that has one. */
  async function poolsBetween(view: BlockView, a: Address, b: Address): Promise<OfferedPool[]> {
    const [token0, token1] = sortTokens(a, b);
    const pools = await Promise.all(
      deployments.map((deployment) => {
        const key = `${deployment.factory}/${token0}/${token1}`;
        return (
          view.pools.get(key) ??
          remember(view.pools, key, readPool(key, deployment, token0, token1, view.tag))
        );
      }),
    );
    return pools.filter((pool): pool is OfferedPool => pool !== null);
  }

  async function routesOf(view: BlockView, path: readonly Address[]): Promise<Route[]> {
    const poolsPerHop = await Promise.all(
      path.slice(1).map((tokenOut, i) => poolsBetween(view, path[i]!, tokenOut)),
    );
    return routesAlong(path, poolsPerHop);
  }

  async function bestRoute(view: BlockView, query: PriceQuery): Promise<RouteQuote | null> {
    const paths = candidatePaths(lower(query.sellToken), lower(query.buyToken), native);
    const routes = (await Promise.all(paths.map((path) => routesOf(view, path)))).flat();
    return query.kind === 'sell'
      ? bestSellRoute(routes, query.amount)
      : bestBuyRoute(routes, query.amount);
  }

  async function nativePriceAt(view: BlockView, token: Address): Promise<number | null> {
    const buy: PriceQuery = {
      sellToken: token,
      buyToken: native,
      kind: 'buy',
      amount: NATIVE_PRICE_AMOUNT,
    };
    const best = await bestRoute(view, buy);
    // Only here do amounts become floats: both are below 2^256, far inside a double's range.
    return best === null ? null : Number(NATIVE_PRICE_AMOUNT) / Number(best.amount);
  }

  return {
    async estimate(query, block) {
      const best = await bestRoute(await viewOf(block), query);
      return best === null ? null : { amount: best.amount, gas: best.gas, path: best.route.path };
    },
    async nativePrice(token, block) {
      const t = lower(token);
      if (t === native) return 1;
      const view = await viewOf(block);
      return view.nativePrices.get(t) ?? remember(view.nativePrices, t, nativePriceAt(view, t));
    },
    async pools(tokens, block) {
      const view = await viewOf(block);
      const all = [...new Set([...tokens.map(lower), native])].sort();
      const pairs = all.flatMap((a, i) => all.slice(i + 1).map((b) => [a, b] as const));
      return (await Promise.all(pairs.map(([a, b]) => poolsBetween(view, a, b)))).flat();
    },
    async gasPrice(block) {
      const view = await viewOf(block);
      if (view.gasPrice === null) {
        const read = rpc.request('gas price', (p) => p.send('eth_gasPrice', [])).then(BigInt);
        view.gasPrice = read;
        read.catch(() => {
          if (view.gasPrice === read) view.gasPrice = null;
        });
      }
      return view.gasPrice;
    },
    async blockNumber() {
      return Number((await viewOf(undefined)).number);
    },
  };
}
