/**
 * POST /api/v1/quote (reference §7, the seed's error codes): check the request as a market
 * order, price it (./quote-pricing.ts), and keep the quote in the quote store until it expires,
 * so that an order placed before then can link to it.
 */
import { ZERO_APP_DATA_HASH } from '../domain/app-data.js';
import type { Address, QuotedOrder, SigningScheme } from '../domain/events.js';
import { parseAddress, parseHexBytes } from '../bytes/hex.js';
import type { Network } from '../domain/networks.js';
import { checkOrderRules, type DenyList, type ValidityLimits } from '../domain/order-rules.js';
import { pricedAmount, type QuoteSide } from '../domain/quote.js';
import type { OrderQuoteBody } from '../../schemas/validators.js';
import type { AppDataRegistry } from './app-data-registry.js';
import { resolveOrderAppData } from './order-app-data.js';
import { additionalGas, priceQuote, quoteGiven, type QuotePricingDeps } from './quote-pricing.js';
import type { QuoteStore } from './quote-store.js';
import { reject } from './rejection.js';

export interface CreateQuoteDeps extends QuotePricingDeps {
  store: QuoteStore;
  appData: AppDataRegistry;
  clock: () => Date;
  denyList: DenyList;
  validity: ValidityLimits;
  appDataSizeLimit: number;
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
): Promise<QuoteResponse> {
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

  const priced = await priceQuote(
    deps,
    network,
    order,
    side(body),
    additionalGas(appData.parsed.hooks, scheme, body.verificationGasLimit),
  );
  const onchainOrder = body.onchainOrder ?? false;
  // `fast` quotes are not stored: no id, and an expiration long past (the reference's).
  const stored =
    body.priceQuality === 'fast'
      ? null
      : quoteGiven(network, from, priced, {
          fullAppData: appData.document,
          onchainOrder,
          now,
        });
  const id = stored ? await deps.store.add(stored) : null;
  return {
    quote: {
      ...priced.quoted,
      gasAmount: priced.gasAmount,
      gasPrice: priced.gasPrice,
      sellTokenPrice: priced.sellTokenPrice,
      partiallyFillable: false,
      // The document as sent when the request carried one, with its hash beside it.
      ...(body.appData !== undefined && parseHexBytes(body.appData, 32) === null
        ? { appData: appData.document, appDataHash: appData.hash }
        : { appData: appData.hash }),
    },
    from,
    expiration: stored?.expiration ?? NEVER,
    id,
    verified: false,
  };
}
