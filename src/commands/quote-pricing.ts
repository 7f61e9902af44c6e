/**
 * What a trade is quoted at (reference §7 steps 2–4), for `POST /quote` and for the fresh quote
 * of an order placed without one (§4.1 step 10): the network's quoting solvers' best price, or
 * the pools' where none answers, with both tokens' native prices and the gas price, read
 * together; the gas charged as a sell-token fee; the amounts answered. And the quote as given.
 */
import { hooksGas, type Hook } from '../domain/app-data.js';
import type { Address, QuotedOrder, SigningScheme } from '../domain/events.js';
import { NATIVE_TOKEN_MARKER, type Network } from '../domain/networks.js';
import {
  plainDecimal,
  pricedAmount,
  quoteAmounts,
  quoteFee,
  quoteLifetimeSeconds,
  type QuoteSide,
  type SolverPrice,
  type StoredQuote,
} from '../domain/quote.js';
import type { PriceEstimator, PriceQuery } from '../chain/prices.js';
import { ChainUnavailableError } from '../chain/rpc.js';
import { reject } from './rejection.js';

export interface QuotePricingDeps {
  prices: PriceEstimator;
  /**
   * The best price the network's quoting solvers give the trade (null when none answers, or the
   * network has none): preferred to the pools' own, which stay the fallback.
   */
  solverQuotes: ((query: PriceQuery, block: number) => Promise<SolverPrice | null>) | null;
  /** Who a quote the pools priced names as its solver. */
  solver: Address;
}

/** Gas an EIP-1271 signature check costs the settlement, unless the request says otherwise. */
const DEFAULT_EIP1271_VERIFICATION_GAS = 27_000;

/**
 * Gas the settlement spends on the order besides its swap (reference §7 step 3): its hooks, and
 * for an EIP-1271 order the owner contract's signature check.
 */
export function additionalGas(
  hooks: { pre: readonly Hook[]; post: readonly Hook[] },
  scheme: SigningScheme,
  verificationGasLimit = DEFAULT_EIP1271_VERIFICATION_GAS,
): bigint {
  return hooksGas(hooks) + (scheme === 'eip1271' ? BigInt(verificationGasLimit) : 0n);
}

export interface PricedQuote {
  /** The order priced, with the quoted amounts and fee. */
  quoted: QuotedOrder;
  gasAmount: string;
  gasPrice: string;
  sellTokenPrice: string;
  /** The solver that priced it: a quoting solver, or `deps.solver` for the pools. */
  solver: Address;
}

/**
 * Prices `order` (its amounts are not read) for the side asked, at `block` (the current block,
 * already asked for) or else at the current block. Refuses with `NoLiquidity` where no one
 * prices it, `SellAmountDoesNotCoverFee` where the fee takes the whole sell amount, and
 * `ChainUnavailable` where the chain does not answer.
 */
export async function priceQuote(
  deps: QuotePricingDeps,
  network: Network,
  order: QuotedOrder,
  side: QuoteSide,
  extraGas: bigint,
  block?: Promise<number>,
): Promise<PricedQuote> {
  const priced = await price(deps, network, order, side, block);
  const fee = quoteFee(priced.gas + extraGas, priced.gasPrice, priced.sellTokenPrice);
  const amounts = quoteAmounts(side, priced, fee);
  if (!amounts.ok) {
    reject('SellAmountDoesNotCoverFee', 'The sell amount does not cover the fee', {
      fee_amount: `0x${fee.toString(16)}`,
    });
  }
  return {
    quoted: {
      ...order,
      sellAmount: amounts.sellAmount.toString(),
      buyAmount: amounts.buyAmount.toString(),
      feeAmount: fee.toString(),
    },
    gasAmount: priced.gas.toString(),
    gasPrice: priced.gasPrice.toString(),
    sellTokenPrice: plainDecimal(priced.sellTokenPrice),
    solver: priced.solver ?? deps.solver,
  };
}

/** The priced quote as given to `from` at `now`, for its lifetime, in the quote store's shape. */
export function quoteGiven(
  network: Network,
  from: Address,
  priced: PricedQuote,
  given: { fullAppData: string | null; onchainOrder: boolean; now: Date },
): Omit<StoredQuote, 'id'> {
  const { quoted, gasAmount, gasPrice, sellTokenPrice, solver } = priced;
  const lifetime = quoteLifetimeSeconds(quoted.signingScheme, given.onchainOrder);
  return {
    network: network.name,
    from,
    quote: quoted,
    fullAppData: given.fullAppData,
    onchainOrder: given.onchainOrder,
    gasAmount,
    gasPrice,
    sellTokenPrice,
    solver,
    verified: false,
    createdAt: given.now.toISOString(),
    expiration: new Date(given.now.getTime() + lifetime * 1000).toISOString(),
  };
}

interface Priced {
  amount: bigint;
  gas: bigint;
  gasPrice: bigint;
  sellTokenPrice: number;
  /** The solver that priced it; null: the pools. */
  solver: Address | null;
}

/**
 * The solvers' best price, or the pools' without one, with both native prices and the gas
 * price, read together (reference §7 step 2).
 */
async function price(
  deps: QuotePricingDeps,
  network: Network,
  order: QuotedOrder,
  side: QuoteSide,
  block: Promise<number> | undefined,
): Promise<Priced> {
  const { prices } = deps;
  // Buying "native ETH" is buying the wrapped token that the settlement unwraps.
  const buyToken =
    order.buyToken === NATIVE_TOKEN_MARKER ? network.wrappedNativeToken : order.buyToken;
  const query: PriceQuery = {
    sellToken: order.sellToken,
    buyToken,
    kind: order.kind,
    amount: pricedAmount(side),
  };
  try {
    // Everything is read at one block, whose reads the quotes asked within it share.
    const at = await (block ?? prices.blockNumber());
    const [fromSolvers, fromPools, sellTokenPrice, buyTokenPrice, gasPrice] = await Promise.all([
      // A solver that cannot price the trade leaves it to the pools, whatever went wrong.
      deps.solverQuotes?.(query, at).catch(() => null) ?? null,
      prices.estimate(query, at),
      prices.nativePrice(order.sellToken, at),
      prices.nativePrice(buyToken, at),
      prices.gasPrice(at),
    ]);
    const estimate = fromSolvers ?? fromPools;
    if (estimate === null || sellTokenPrice === null || buyTokenPrice === null) {
      reject('NoLiquidity', 'no route found');
    }
    return {
      amount: estimate.amount,
      gas: estimate.gas,
      gasPrice,
      sellTokenPrice,
      solver: fromSolvers?.solver ?? null,
    };
  } catch (error) {
    if (error instanceof ChainUnavailableError) {
      reject(
        'ChainUnavailable',
        `the chain could not be read to price the order: ${error.message}`,
      );
    }
    throw error;
  }
}
