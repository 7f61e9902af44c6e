/**
 * POST /api/v1/orders: decide whether a signed order is accepted and, if so, append
 * `OrderPlaced` to its new stream. The pipeline follows reference §4.1 with the seed's codes;
 * a rejected order writes nothing. An order whose app data names `replacedOrder` first cancels
 * that order (./order-replacement.ts).
 */
import { parseUint256 } from '../domain/amounts.js';
import type { Hook } from '../domain/app-data.js';
import { domainSeparator, orderDigest, computeOrderUid } from '../domain/eip712.js';
import { deterministicEventId } from '../domain/event-ids.js';
import {
  streams,
  type Address,
  type Interaction,
  type OrderData,
  type OrderPlacedV1,
  type OrderUid,
} from '../domain/events.js';
import { bytesToHex, parseAddress } from '../bytes/hex.js';
import type { Network } from '../domain/networks.js';
import { checkNoSignedFee, checkOrderRules, orderClass } from '../domain/order-rules.js';
import { checkQuotedOrderRules } from '../domain/quoted-order-rules.js';
import { WrongExpectedRevisionError, type Ledger } from '../ledger/port.js';
import type { OrderCreationBody } from '../../schemas/validators.js';
import { hooksInteraction } from '../chain/hooks-call.js';
import type { OrderChainChecks } from '../chain/order-checks.js';
import type { AppDataRegistry } from './app-data-registry.js';
import { checkOrderOnChain } from './order-chain-checks.js';
import { linkQuote, type QuoteLinkDeps } from './order-quote-link.js';
import type { OrderQueries } from '../queries/orders.js';
import { outsideMarket, quotableOrder } from '../domain/quote.js';
import { checkOrderAppData, findOrderAppData, type FoundAppData } from './order-app-data.js';
import {
  cancelReplaced,
  checkReplacement,
  precheckReplacement,
  type ReplacedOrder,
  type ReplacementDeps,
} from './order-replacement.js';
import { verifyOwner } from './order-owner.js';
import { reject } from './rejection.js';
import { envelope } from '../domain/event-envelope.js';
import { timedStage, timedStep } from '../metrics/stage-timings.js';

export interface PlaceOrderDeps extends ReplacementDeps, QuoteLinkDeps {
  ledger: Ledger;
  appData: AppDataRegistry;
  clock: () => Date;
  denyList: { accounts: ReadonlySet<Address>; tokens: ReadonlySet<Address> };
  validity: { min: number; maxMarket: number; maxLimit: number };
  appDataSizeLimit: number;
  /** The network's chain reads; the HTTP layer refuses writes on a network that is not live. */
  chain: OrderChainChecks;
  /** For the per-owner cap on limit orders outside the market (`TooManyLimitOrders`). */
  orders: Pick<OrderQueries, 'liveOutsideMarketLimitOrders'>;
  maxLimitOrdersPerOwner: number;
}

export interface PlacedOrder {
  uid: OrderUid;
  position: string;
  /** Set when the order brought a document the registry did not know: it was registered too. */
  appDataPosition: string | null;
}

function amount(
  value: string,
  overflowError: 'SellAmountOverflow' | 'BuyAmountOverflow',
  field: string,
): string {
  const parsed = parseUint256(value);
  if (parsed.ok) return parsed.value.toString();
  if (parsed.reason === 'overflow') reject(overflowError, `${field} exceeds uint256`);
  return reject('InvalidParameter', `/${field} is not a uint256 amount`);
}

/** Body fields are shape-checked by the JSON Schema already; this normalises them. */
function signedOrder(body: OrderCreationBody, appDataHash: `0x${string}`): OrderData {
  const receiver = body.receiver ? parseAddress(body.receiver) : null;
  return {
    sellToken: parseAddress(body.sellToken)!,
    buyToken: parseAddress(body.buyToken)!,
    receiver: receiver === '0x0000000000000000000000000000000000000000' ? null : receiver,
    sellAmount: amount(body.sellAmount, 'SellAmountOverflow', 'sellAmount'),
    buyAmount: amount(body.buyAmount, 'BuyAmountOverflow', 'buyAmount'),
    validTo: body.validTo,
    appData: appDataHash,
    feeAmount: amount(body.feeAmount, 'SellAmountOverflow', 'feeAmount'),
    kind: body.kind,
    partiallyFillable: body.partiallyFillable,
    sellTokenBalance: body.sellTokenBalance ?? 'erc20',
    buyTokenBalance: body.buyTokenBalance ?? 'erc20',
  };
}

/** The app-data hooks of one stage as at most one interaction: the trampoline's `execute`. */
function hookInteractions(network: Network, hooks: readonly Hook[]): Interaction[] {
  const interaction = hooksInteraction(network.hooksTrampoline, hooks);
  return interaction ? [interaction] : [];
}

export async function placeOrder(
  deps: PlaceOrderDeps,
  network: Network,
  body: OrderCreationBody,
): Promise<PlacedOrder> {
  const now = deps.clock();
  const found = await timedStage('order: app-data lookup', () =>
    findOrderAppData(deps.appData, network.name, body.appData, body.appDataHash),
  );
  const order = signedOrder(body, found.hash);
  const digest = orderDigest(order, domainSeparator(network.chainId, network.settlementContract));
  const replaced = await precheck(deps, network, found, digest, now);
  const appData = await timedStage('order: app-data check', () =>
    checkOrderAppData(deps.appData, network.name, found, body.appDataHash, deps.appDataSizeLimit),
  );
  const { owner, signature } = timedStep('order: signature recovery', () =>
    verifyOwner({
      scheme: body.signingScheme,
      signature: body.signature,
      digest,
      from: body.from ? parseAddress(body.from) : null,
      appDataSigner: appData.parsed.signer ?? null,
    }),
  );
  const uid = computeOrderUid(digest, owner, order.validTo);
  const orderClassValue = orderClass(order);
  const violation = checkOrderRules({
    order,
    owner,
    signingScheme: body.signingScheme,
    class: orderClassValue,
    nowSeconds: Math.floor(now.getTime() / 1000),
    network,
    denyList: deps.denyList,
    validity: deps.validity,
    request: 'submission',
  });
  if (violation) reject(violation.errorType, violation.description);
  // Step 10's other outcome for an order with a fee, known without a quote: pricing one costs
  // chain reads and the solvers' time.
  const signedFee = checkNoSignedFee(order);
  // The quote is priced while the chain is asked about the order: both only read, and each
  // takes a round trip to the node. Their refusals still come in the steps' order: the chain
  // check's, the signed fee's, then the quote's.
  const quoting = signedFee
    ? null
    : timedStage('order: quote', () =>
        linkQuote(
          deps,
          network,
          {
            order,
            owner,
            signingScheme: body.signingScheme,
            appData,
            quoteId: body.quoteId ?? null,
          },
          now,
        ),
      );
  // Never unhandled: a refusal before it is awaited makes its own refusal moot.
  quoting?.catch(() => undefined);
  await timedStage('order: chain check', () =>
    checkOrderOnChain(deps.chain, {
      order,
      owner,
      scheme: body.signingScheme,
      signature,
      digest,
      fullBalanceCheck: body.fullBalanceCheck ?? false,
      wrapped: appData.parsed.hasWrappers,
    }),
  );
  if (signedFee) reject(signedFee.errorType, signedFee.description);
  const quote = await quoting!;
  // Every order left is a limit order; one asking more than its quote counts against the cap.
  if (quote && outsideMarket(quotableOrder(order), quote)) {
    const live = await deps.orders.liveOutsideMarketLimitOrders(
      network.name,
      owner,
      Math.floor(now.getTime() / 1000),
    );
    if (live >= deps.maxLimitOrdersPerOwner) {
      reject('TooManyLimitOrders', 'Too many limit orders');
    }
  }
  const quoted = checkQuotedOrderRules({
    quoteGas: quote ? BigInt(quote.gasAmount) : 0n,
    hooks: appData.parsed.hooks,
    validFrom: appData.parsed.validFrom,
    validTo: order.validTo,
  });
  if (quoted) reject(quoted.errorType, quoted.description);
  // Step 13: a replacement's checks, then the old order's cancellation, before the placement.
  let cancelPosition: string | null = null;
  if (replaced) {
    const replacement = { uid, owner, signingScheme: body.signingScheme };
    await checkReplacement(deps, network.name, replaced, replacement);
    cancelPosition = await cancelReplaced(deps.ledger, network.name, replaced, replacement, now);
  }
  const registration = appData.needsRegistration
    ? await deps.appData.register(network.name, appData.hash, appData.document, now)
    : null;
  const placed: OrderPlacedV1 = {
    network: network.name,
    uid,
    owner,
    order,
    signingScheme: body.signingScheme,
    signature,
    class: orderClassValue,
    creationDate: now.toISOString(),
    settlementContract: network.settlementContract,
    fullAppData: appData.document,
    quoteId: quote?.id ?? null,
    quote,
    interactions: {
      pre: hookInteractions(network, appData.parsed.hooks.pre),
      post: hookInteractions(network, appData.parsed.hooks.post),
    },
  };
  const placedPosition = await timedStage('order: append (group commit)', () =>
    record(deps.ledger, placed),
  );
  // The old order's cancellation was recorded first; a retry may find it after the placement.
  const position =
    cancelPosition !== null && deps.ledger.comparePositions(cancelPosition, placedPosition) > 0
      ? cancelPosition
      : placedPosition;
  return { uid, position, appDataPosition: registration?.position ?? null };
}

/**
 * Step 3: when the full app data names an order to replace, that order must be cancellable.
 * The document was parsed without the size limit, as the reference reads it here; step 4
 * applies the limit.
 */
async function precheck(
  deps: PlaceOrderDeps,
  network: Network,
  found: FoundAppData,
  digest: Uint8Array,
  now: Date,
): Promise<ReplacedOrder | null> {
  if (found.validation === null) return null;
  if (!found.validation.ok) reject('InvalidAppData', found.validation.reason);
  const uid = found.validation.appData.replacedOrder;
  if (uid === undefined) return null;
  return precheckReplacement(deps.ledger, network.name, uid, bytesToHex(digest), now);
}

/** A new stream per order: `noStream` makes a duplicate UID a conflict, atomically. */
async function record(ledger: Ledger, placed: OrderPlacedV1): Promise<string> {
  try {
    const result = await ledger.append(
      streams.order(placed.network, placed.uid),
      [
        envelope(
          { type: 'OrderPlaced', data: placed },
          deterministicEventId('OrderPlaced', placed.network, placed.uid),
        ),
      ],
      'noStream',
    );
    if (!result.written) reject('DuplicatedOrder', 'order already exists');
    return result.position;
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError)
      reject('DuplicatedOrder', 'order already exists');
    throw error;
  }
}
