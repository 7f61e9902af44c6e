/**
 * POST /api/v1/quote (reference §7, the seed's error codes): price the order by the network's
 * quoting solvers, or from on-chain liquidity where none answers, charge the gas as a sell-token
 * fee, and record the quote (`QuoteCreated`) so that an order placed before it expires can link
 * to it.
 */
import { ZERO_APP_DATA_HASH } from '../domain/app-data.js';
import { deterministicEventId } from '../domain/event-ids.js';
import {
  EVENT_VERSIONS,
  streams,
  type Address,
  type QuoteCreatedV1,
  type QuotedOrder,
  type SigningScheme,
} from '../domain/events.js';
import { parseAddress, parseHexBytes } from '../domain/hex.js';
import { NATIVE_TOKEN_MARKER, type Network } from '../domain/networks.js';
import { checkOrderRules, type DenyList, type ValidityLimits } from '../domain/order-rules.js';
import {
  plainDecimal,
  pricedAmount,
  quoteAmounts,
  quoteFee,
  quoteLifetimeSeconds,
  type QuoteSide,
  type SolverPrice,
} from '../domain/quote.js';
import type { Ledger } from '../ledger/port.js';
import type { PriceEstimator, PriceQuery } from '../chain/prices.js';
import { ChainUnavailableError } from '../chain/rpc.js';
import type { OrderQuoteBody } from '../../schemas/validators.js';
import type { AppDataRegistry } from './app-data-registry.js';
import { resolveOrderAppData } from './order-app-data.js';
import { reject } from './rejection.js';

export interface CreateQuoteDeps {
  ledger: Ledger;
  appData: AppDataRegistry;
  clock: () => Date;
  denyList: DenyList;
  validity: ValidityLimits;
  appDataSizeLimit: number;
  prices: PriceEstimator;
  /**
   * The best price the network's quoting solvers give the trade (null when none answers, or the
   * network has none): preferred to the pools' own, which stay the fallback.
   */
  solverQuotes: ((query: PriceQuery) => Promise<SolverPrice | null>) | null;
  nextQuoteId: () => Promise<number>;
  /** Who a quote the pools priced names as its solver. */
  solver: Address;
}

export interface QuoteResponse {
  quote: Omit<QuotedOrder, 'appData'> & {
    partiallyFillable: false;
    gasAmount: string;
    gasPrice: string;
    sellTokenPrice: string;
    appData: string;
    appDataHash?: string;
  };
  from: Address;
  expiration: string;
  id: number | null;
  verified: boolean;
}

export interface CreatedQuote {
  response: QuoteResponse;
  /** Ledger position of the stored quote; null for `fast` quotes, which are not stored. */
  position: string | null;
}

/** Gas an EIP-1271 signature check costs the settlement, unless the request says otherwise. */
const DEFAULT_EIP1271_VERIFICATION_GAS = 27_000n;
const DEFAULT_VALIDITY_SECONDS = 1800;
/** What the reference answers as the expiration of a quote it does not store. */
const NEVER = new Date(0).toISOString().replace('.000Z', 'Z');

function side(body: OrderQuoteBody): QuoteSide {
  if (body.kind === 'buy')
    return { kind: 'buy', buyAmountAfterFee: BigInt(body.buyAmountAfterFee!) };
  return body.sellAmountBeforeFee !== undefined
    ? { kind: 'sell', sellAmountBeforeFee: BigInt(body.sellAmountBeforeFee) }
    : { kind: 'sell', sellAmountAfterFee: BigInt(body.sellAmountAfterFee!) };
}

/** The request combinations the reference refuses before pricing anything. */
function checkShape(body: OrderQuoteBody, scheme: SigningScheme): void {
  const given = (
    ['sellAmountBeforeFee', 'sellAmountAfterFee', 'buyAmountAfterFee'] as const
  ).filter((field) => body[field] !== undefined);
  const allowed =
    body.kind === 'sell' ? ['sellAmountBeforeFee', 'sellAmountAfterFee'] : ['buyAmountAfterFee'];
  if (given.length !== 1 || !allowed.includes(given[0]!)) {
    reject(
      'InvalidParameter',
      `a ${body.kind} quote takes exactly one of ${allowed.map((f) => `/${f}`).join(', ')}`,
    );
  }
  if (pricedAmount(side(body)) === 0n) reject('InvalidParameter', `/${given[0]} must not be zero`);
  if (body.onchainOrder && (scheme === 'eip712' || scheme === 'ethsign')) {
    reject('InvalidParameter', 'onchainOrder needs the eip1271 or presign signing scheme');
  }
  if (body.verificationGasLimit !== undefined && scheme !== 'eip1271') {
    reject('InvalidParameter', 'verificationGasLimit is only for eip1271 orders');
  }
  if (body.validTo !== undefined && body.validFor !== undefined) {
    reject('InvalidParameter', 'give validTo or validFor, not both');
  }
  if (body.appDataHash != null && body.appData === undefined) {
    reject('InvalidAppData', 'appDataHash needs appData');
  }
}

export async function createQuote(
  deps: CreateQuoteDeps,
  network: Network,
  body: OrderQuoteBody,
): Promise<CreatedQuote> {
  const now = deps.clock();
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const scheme = body.signingScheme ?? 'eip712';
  checkShape(body, scheme);
  const appData = await resolveOrderAppData(
    deps.appData,
    network.name,
    body.appData ?? ZERO_APP_DATA_HASH,
    body.appDataHash,
    deps.appDataSizeLimit,
  );
  const from = parseAddress(body.from)!;
  const order: QuotedOrder = {
    sellToken: parseAddress(body.sellToken)!,
    buyToken: parseAddress(body.buyToken)!,
    receiver: body.receiver ? parseAddress(body.receiver) : null,
    sellAmount: '1',
    buyAmount: '1',
    validTo: body.validTo ?? nowSeconds + (body.validFor ?? DEFAULT_VALIDITY_SECONDS),
    appData: appData.hash,
    feeAmount: '0',
    kind: body.kind,
    sellTokenBalance: body.sellTokenBalance ?? 'erc20',
    buyTokenBalance: body.buyTokenBalance ?? 'erc20',
    signingScheme: scheme,
  };
  // Quotes are validated as market orders would be (reference §7 step 1).
  const violation = checkOrderRules({
    order: { ...order, partiallyFillable: false },
    owner: from,
    signingScheme: scheme,
    class: 'market',
    nowSeconds,
    network,
    denyList: deps.denyList,
    validity: deps.validity,
    request: 'quote',
  });
  if (violation) reject(violation.errorType, violation.description);

  const requested = side(body);
  const priced = await price(deps, network, order, requested);
  const hookGas = [...appData.parsed.hooks.pre, ...appData.parsed.hooks.post].reduce(
    (sum, hook) => sum + hook.gasLimit,
    0n,
  );
  const verificationGas =
    scheme === 'eip1271'
      ? BigInt(body.verificationGasLimit ?? DEFAULT_EIP1271_VERIFICATION_GAS)
      : 0n;
  const fee = quoteFee(
    priced.gas + hookGas + verificationGas,
    priced.gasPrice,
    priced.sellTokenPrice,
  );
  const amounts = quoteAmounts(requested, priced, fee);
  if (!amounts.ok) {
    reject('SellAmountDoesNotCoverFee', 'The sell amount does not cover the fee', {
      fee_amount: `0x${fee.toString(16)}`,
    });
  }
  const quoted: QuotedOrder = {
    ...order,
    sellAmount: amounts.sellAmount.toString(),
    buyAmount: amounts.buyAmount.toString(),
    feeAmount: fee.toString(),
  };
  const onchainOrder = body.onchainOrder ?? false;
  const stored = body.priceQuality !== 'fast';
  const id = stored ? await deps.nextQuoteId() : null;
  const expiration = stored
    ? new Date(now.getTime() + quoteLifetimeSeconds(scheme, onchainOrder) * 1000).toISOString()
    : NEVER;
  const costs = {
    gasAmount: priced.gas.toString(),
    gasPrice: priced.gasPrice.toString(),
    sellTokenPrice: plainDecimal(priced.sellTokenPrice),
  };
  const response: QuoteResponse = {
    quote: {
      ...quoted,
      ...costs,
      partiallyFillable: false,
      // The document as sent when the request carried one, with its hash beside it.
      ...(body.appData !== undefined && parseHexBytes(body.appData, 32) === null
        ? { appData: appData.document, appDataHash: appData.hash }
        : { appData: appData.hash }),
    },
    from,
    expiration,
    id,
    verified: false,
  };
  if (id === null) return { response, position: null };

  const event: QuoteCreatedV1 = {
    network: network.name,
    id,
    from,
    quote: quoted,
    fullAppData: appData.document,
    onchainOrder,
    ...costs,
    solver: priced.solver ?? deps.solver,
    verified: false,
    createdAt: now.toISOString(),
    expiration,
  };
  const { position } = await deps.ledger.append(
    streams.quote(network.name, id),
    [
      {
        id: deterministicEventId('QuoteCreated', network.name, id),
        type: 'QuoteCreated',
        version: EVENT_VERSIONS.QuoteCreated,
        data: event,
      },
    ],
    'noStream',
  );
  return { response, position };
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
  deps: Pick<CreateQuoteDeps, 'prices' | 'solverQuotes'>,
  network: Network,
  order: QuotedOrder,
  requested: QuoteSide,
): Promise<Priced> {
  const { prices } = deps;
  // Buying "native ETH" is buying the wrapped token that the settlement unwraps.
  const buyToken =
    order.buyToken === NATIVE_TOKEN_MARKER ? network.wrappedNativeToken : order.buyToken;
  const query: PriceQuery = {
    sellToken: order.sellToken,
    buyToken,
    kind: order.kind,
    amount: pricedAmount(requested),
  };
  try {
    const [fromSolvers, fromPools, sellTokenPrice, buyTokenPrice, gasPrice] = await Promise.all([
      // A solver that cannot price the trade leaves it to the pools, whatever went wrong.
      deps.solverQuotes?.(query).catch(() => null) ?? null,
      prices.estimate(query),
      prices.nativePrice(order.sellToken),
      prices.nativePrice(buyToken),
      prices.gasPrice(),
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
