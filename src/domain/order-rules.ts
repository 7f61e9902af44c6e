/**
 * The submission rules that need no chain and no database (reference §4.1 steps 7–8 and the
 * fee check of step 10), in the reference's order: the first broken rule is the answer.
 *
 * One seed override, for submissions only: a `validTo` already in the past is `OrderExpired`
 * (seed §7.2) where the reference says `InsufficientValidTo`, as it still does for quotes.
 */
import type { Address, OrderClass, OrderData, SigningScheme } from './events.js';
import type { OrderRejection } from './errors.js';
import { NATIVE_TOKEN_MARKER, type Network } from './networks.js';

export type { OrderRejection } from './errors.js';

export interface ValidityLimits {
  /** Seconds an order must stay valid from now (reference default 60). */
  min: number;
  /** Longest validity of market orders (3 h). */
  maxMarket: number;
  /** Longest validity of limit orders (1 year). */
  maxLimit: number;
}

export const DEFAULT_VALIDITY: ValidityLimits = {
  min: 60,
  maxMarket: 3 * 3600,
  maxLimit: 31_536_000,
};

export interface DenyList {
  accounts: ReadonlySet<Address>;
  tokens: ReadonlySet<Address>;
}

export interface OrderRulesInput {
  /** Parsed order: lowercase addresses, amounts already checked to be uint256. */
  order: OrderData;
  owner: Address;
  signingScheme: SigningScheme;
  class: OrderClass;
  nowSeconds: number;
  network: Network;
  denyList: DenyList;
  validity: ValidityLimits;
  /** What is checked: an order submitted, or the order a quote request describes. */
  request: 'submission' | 'quote';
}

const ZERO_ADDRESS: Address = `0x${'0'.repeat(40)}`;

/** The reference's class rule: an order signing a fee is a market order. */
export function orderClass(order: Pick<OrderData, 'feeAmount'>): OrderClass {
  return BigInt(order.feeAmount) === 0n ? 'limit' : 'market';
}

const reject = (errorType: OrderRejection['errorType'], description: string): OrderRejection => ({
  errorType,
  description,
});

/** Rust's Debug spelling of the balance enums, which the reference puts in its descriptions. */
const typeName = (balance: string): string => balance.charAt(0).toUpperCase() + balance.slice(1);

function maxValidity(input: OrderRulesInput): number {
  // Presign orders may be signed on chain long before they trade; liquidity orders are
  // placed by solvers. Neither has an upper bound.
  if (input.signingScheme === 'presign' || input.class === 'liquidity') return Infinity;
  return input.class === 'market' ? input.validity.maxMarket : input.validity.maxLimit;
}

export function checkOrderRules(input: OrderRulesInput): OrderRejection | null {
  const { order, owner, nowSeconds, network, denyList } = input;
  if (BigInt(order.sellAmount) === 0n || BigInt(order.buyAmount) === 0n) {
    return reject('ZeroAmount', 'Buy or sell amount is zero.');
  }
  const receiver =
    order.receiver === null || order.receiver === ZERO_ADDRESS ? owner : order.receiver;
  if (denyList.accounts.has(owner) || denyList.accounts.has(receiver)) {
    return reject('Forbidden', 'Forbidden, your account is deny-listed');
  }
  if (input.class === 'market' && order.partiallyFillable) {
    return reject('UnsupportedOrderType', 'This order type is currently not supported');
  }
  if (order.buyTokenBalance !== 'erc20') {
    return reject('UnsupportedBuyTokenDestination', `Type ${typeName(order.buyTokenBalance)}`);
  }
  if (order.sellTokenBalance !== 'erc20') {
    return reject('UnsupportedSellTokenSource', `Type ${typeName(order.sellTokenBalance)}`);
  }
  if (order.validTo < nowSeconds && input.request === 'submission') {
    return reject('OrderExpired', 'validTo is in the past');
  }
  if (order.validTo < nowSeconds + input.validity.min) {
    return reject('InsufficientValidTo', 'validTo is not far enough in the future');
  }
  if (order.validTo > nowSeconds + maxValidity(input)) {
    return reject('ExcessiveValidTo', 'validTo is too far into the future');
  }
  if (
    order.sellToken === order.buyToken ||
    (order.sellToken === network.wrappedNativeToken && order.buyToken === NATIVE_TOKEN_MARKER)
  ) {
    return reject('SameBuyAndSellToken', 'Buy token is the same as the sell token.');
  }
  if (order.sellToken === NATIVE_TOKEN_MARKER) {
    return reject(
      'InvalidNativeSellToken',
      "The chain's native token (Ether/xDai) cannot be used as the sell token",
    );
  }
  for (const token of [order.sellToken, order.buyToken]) {
    if (denyList.tokens.has(token)) {
      return reject('UnsupportedToken', `Token ${token} is unsupported: token is deny listed`);
    }
  }
  return null;
}

/**
 * The reference's last word on a market order (one signing a fee), after its chain checks
 * (§4.1 step 10; the reference prices its quote first, which cannot save it): the book charges
 * no signed fee.
 */
export function checkNoSignedFee(order: Pick<OrderData, 'feeAmount'>): OrderRejection | null {
  return orderClass(order) === 'market' ? reject('NonZeroFee', 'Fee must be zero') : null;
}
