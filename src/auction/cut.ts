/**
 * Cutting an auction (reference §6, "building the solvable set"): the open orders valid beyond
 * the margin, minus those in flight (a winner's settlement still pending), those whose
 * interactions call anything but the HooksTrampoline, those whose owner cannot fund them at
 * this block (the balance, and what the vault relayer may pull of it, as the reference's
 * tradable balance), those whose EIP-1271 owner contract no longer accepts their signature,
 * partially fillable ones with only dust left and those whose tokens have no native price;
 * filtered orders keep their reason. Prices are the native prices of every token the auction
 * trades, 1e18-scaled.
 */
import type {
  Address,
  AuctionClosedV5,
  AuctionedOrder,
  AuctionOrder,
  FilterReason,
  OrderUid,
} from '../domain/events.js';
import type { OrderChainChecks } from '../chain/order-checks.js';
import type { PriceEstimator } from '../chain/prices.js';
import { splitOrderUid } from '../domain/eip712.js';
import { onlyThroughTrampoline, type InteractionTargets } from '../domain/hook-interactions.js';
import { NATIVE_TOKEN_MARKER } from '../domain/networks.js';
import { mapAtOnce } from './at-once.js';
import { timedStage, timedStep } from '../metrics/stage-timings.js';
import { orderTermsOf, type OrderTerms } from '../domain/order-terms.js';
import type { InFlightOrder } from '../queries/competitions.js';
import { auctionOrder, executedOf } from '../queries/auction-order.js';
import type { ApiOrder } from '../queries/order-view.js';

export interface CutDeps {
  solvable(nowSeconds: number, validAfter: number): Promise<ApiOrder[]>;
  /**
   * Orders of winning solutions whose settlement may still land (reference §6 step 3), with
   * what each counts as filled once it has.
   */
  inFlight(now: Date): Promise<readonly InFlightOrder[]>;
  prices: PriceEstimator;
  chain: Pick<OrderChainChecks, 'balanceOf' | 'allowance' | 'eip1271SignatureValid'>;
  blockNumber(): Promise<number>;
  /** Seconds an order must remain valid to enter an auction (time to solve and settle). */
  validityMargin: number;
  /** What an order's interactions may call: the network's trampoline and eth-flow `wrapAll`. */
  interactionTargets: InteractionTargets;
}

export type CutAuction = Pick<AuctionClosedV5, 'block' | 'prices' | 'filtered'> & {
  /** In full: what the solvers get, and the trades a winner's settlement encodes. */
  orders: AuctionOrder[];
  /** The same orders in the contract's terms, in the same order. */
  solverOrders: OrderTerms[];
};

const ONE_NATIVE = 10n ** 18n;

/** The orders as `AuctionClosed` records them: by UID, with what had executed by the cut. */
export function auctionedOrders(orders: readonly AuctionOrder[]): AuctionedOrder[] {
  return orders.map(({ uid, executed }) => ({ uid, executed }));
}

/** Reads of each kind (balances, allowances, signatures) in flight at once (see `mapAtOnce`). */
const READS_AT_ONCE = 16;

/** What an order's owner holds of its sell token is read under this key, once per auction. */
const fundsKey = (order: ApiOrder) => `${order.owner}/${order.sellToken}`;

/** `read(owner, token)` of each distinct key of `orders`. */
async function readPerKey(
  orders: readonly ApiOrder[],
  read: (owner: Address, token: Address) => Promise<bigint>,
): Promise<Map<string, bigint>> {
  const keys = [...new Set(orders.map(fundsKey))];
  const amounts = await mapAtOnce(keys, READS_AT_ONCE, (key) => {
    const [owner, token] = key.split('/') as [Address, Address];
    return read(owner, token);
  });
  return new Map(keys.map((key, i) => [key, amounts[i]!]));
}

/**
 * Whether the vault relayer's allowance bounds what the order can sell now. Not for an order
 * with pre-hooks (one may grant it: an EIP-2612 permit), nor one selling from its Balancer
 * balances (approved to the Vault, not to the relayer).
 */
const allowanceBound = (order: ApiOrder) =>
  order.sellTokenBalance === 'erc20' && order.interactions.pre.length === 0;

/**
 * Whether the order's owner contract is asked again whether it accepts the signature (as the
 * reference's autopilot does). Not with pre-hooks: one may set the signature up, and hooks are
 * not run here.
 */
const signatureRechecked = (order: ApiOrder) =>
  order.signingScheme === 'eip1271' && order.interactions.pre.length === 0;

/** The UIDs of `orders` whose owner contract refuses their signature now. */
async function refusedSignatures(
  orders: readonly ApiOrder[],
  chain: Pick<OrderChainChecks, 'eip1271SignatureValid'>,
): Promise<Set<OrderUid>> {
  const valid = await mapAtOnce(orders, READS_AT_ONCE, (order) =>
    chain.eip1271SignatureValid(order.owner, splitOrderUid(order.uid).digest, order.signature),
  );
  return new Set(orders.filter((_, i) => !valid[i]).map((order) => order.uid));
}

/** What the contract counts the order as filled: sell atoms of sell orders, buy atoms of buy orders. */
const filled = (order: ApiOrder) =>
  BigInt(order.kind === 'sell' ? order.executedSellAmountBeforeFees : order.executedBuyAmount);

/** What the owner must hold for the order to settle now (reference §6 step 4); 0: no check. */
function neededBalance(order: ApiOrder): bigint {
  // A contract owner may pull funds in during its signature check: its balance proves nothing.
  if (order.signingScheme === 'eip1271') return 0n;
  if (order.partiallyFillable) return 1n;
  return BigInt(order.sellAmount) + BigInt(order.feeAmount);
}

/**
 * Whether what is left of a partially fillable order is dust (reference §6 step 5): scaled to
 * the part not yet filled, and to what the owner can fund (`available`, when known), its sell or
 * its buy amount rounds down to nothing. No trade of it could meet its limit price.
 */
function isDust(order: ApiOrder, available: bigint | null): boolean {
  if (!order.partiallyFillable) return false;
  const [sell, buy] = [BigInt(order.sellAmount), BigInt(order.buyAmount)];
  const total = order.kind === 'sell' ? sell : buy;
  // The part left, as the fraction left / whole of the order.
  let [left, whole] = [total - filled(order), total];
  if (available !== null && available * whole < left * sell) [left, whole] = [available, sell];
  return (sell * left) / whole === 0n || (buy * left) / whole === 0n;
}

export async function cutAuction(deps: CutDeps, now: Date): Promise<CutAuction> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const [block, solvable, inFlight] = await Promise.all([
    deps.blockNumber(),
    timedStage('auction: cut solvable read', () =>
      deps.solvable(nowSeconds, nowSeconds + deps.validityMargin),
    ),
    deps.inFlight(now).then((found) => new Map(found.map((o) => [o.uid, BigInt(o.filledAfter)]))),
  ]);
  // In flight until the orders read model shows the settlement's fill.
  const open = solvable.filter((order) => {
    const filledAfter = inFlight.get(order.uid);
    return filledAfter === undefined || filled(order) >= filledAfter;
  });
  const tokens = [...new Set(open.flatMap((o) => [o.sellToken, o.buyToken]))];
  // Native ETH (bought only: the marker is no sell token) is worth one native token per atom.
  const nativePrice = (t: Address) =>
    t === NATIVE_TOKEN_MARKER ? Promise.resolve(1) : deps.prices.nativePrice(t);
  const nativePrices = new Map(
    await Promise.all(
      tokens.map(async (t) => [t, await nativePrice(t)] as [Address, number | null]),
    ),
  );
  const priced = (order: ApiOrder) =>
    nativePrices.get(order.sellToken) != null && nativePrices.get(order.buyToken) != null;
  const trampolined = (order: ApiOrder) =>
    onlyThroughTrampoline(deps.interactionTargets, order.interactions.pre, order.interactions.post);
  const checked = open.filter((order) => trampolined(order) && priced(order));
  const fundsChecked = checked.filter((order) => neededBalance(order) > 0n);
  const [balances, allowances, refused] = await Promise.all([
    readPerKey(fundsChecked, (owner, token) => deps.chain.balanceOf(owner, token)),
    readPerKey(fundsChecked.filter(allowanceBound), (owner, token) =>
      deps.chain.allowance(owner, token),
    ),
    refusedSignatures(checked.filter(signatureRechecked), deps.chain),
  ]);
  const available = (order: ApiOrder) => {
    const balance = balances.get(fundsKey(order))!;
    if (!allowanceBound(order)) return balance;
    const allowed = allowances.get(fundsKey(order))!;
    return allowed < balance ? allowed : balance;
  };

  const filtered: { uid: OrderUid; reason: FilterReason }[] = [];
  const orders: AuctionOrder[] = [];
  const solverOrders: OrderTerms[] = [];
  timedStep('auction: cut assembly', () => {
    for (const order of open) {
      if (!trampolined(order)) {
        filtered.push({ uid: order.uid, reason: 'UntrampolinedInteractions' });
        continue;
      }
      if (!priced(order)) {
        filtered.push({ uid: order.uid, reason: 'MissingNativePrice' });
        continue;
      }
      if (refused.has(order.uid)) {
        filtered.push({ uid: order.uid, reason: 'InvalidSignature' });
        continue;
      }
      const needed = neededBalance(order);
      if (needed > 0n && available(order) < needed) {
        filtered.push({ uid: order.uid, reason: 'InsufficientBalance' });
        continue;
      }
      if (isDust(order, needed > 0n ? available(order) : null)) {
        filtered.push({ uid: order.uid, reason: 'DustOrder' });
        continue;
      }
      const auctioned = auctionOrder(order, executedOf(order));
      orders.push(auctioned);
      solverOrders.push(orderTermsOf(auctioned));
    }
  });
  const prices: Record<Address, string> = {};
  for (const order of orders) {
    for (const token of [order.sellToken, order.buyToken]) {
      prices[token] ??= BigInt(
        Math.round(nativePrices.get(token)! * Number(ONE_NATIVE)),
      ).toString();
    }
  }
  return { block, orders, prices, filtered, solverOrders };
}
