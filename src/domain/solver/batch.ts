/**
 * A batch built from proposals, each over one pair of tokens or (rings) three: the built-in
 * solver's way of putting the proposals that fit together into one settlement at one price
 * vector (see `Batch`).
 */
import { MAX_UINT256 } from '../amounts.js';
import type { Address, OrderUid } from '../events.js';
import type { OrderTerms } from '../order-terms.js';
import { MAX_SETTLEMENT_GAS, gcd, settlementGas } from './execution.js';
import type { Proposal, Solution } from './types.js';

/**
 * The least price the batch derives a new token's price from, so that rounding the new price to
 * an integer moves the pair's ratio by at most one part in 2^64.
 */
const PRICE_PRECISION = 1n << 64n;

/** Tokens whose prices move together: a batch's prices are one connected set per component. */
type Component = Map<Address, bigint>;

/** A proposal worked out at the batch's prices, and how to record those prices. */
interface Joined {
  solution: Solution;
  commit(): void;
}

/** What joining a batch may cost a proposal's score: one part in 2^16. */
const LOSS_BITS = 16n;

/**
 * A batch built from proposals, each over one pair of tokens or (rings) three. Its prices form a
 * forest: a new proposal joins a component through at most one token, whose price the batch
 * keeps, and the proposal is worked out again at that price (or the two sides are scaled to
 * agree exactly); a ring may join several components, each through one of its tokens.
 * Scaling a whole component keeps every ratio, so trades already in stay exact; the only limit
 * is the contract's uint256 products, checked against the largest amount each token multiplies.
 */
export class Batch {
  private readonly components = new Map<Address, Component>();
  private readonly largest = new Map<Address, bigint>();
  private readonly usedOrders = new Set<OrderUid>();
  private readonly usedPools = new Set<Address>();
  readonly parts: Solution[] = [];

  constructor(
    private readonly orders: ReadonlyMap<OrderUid, OrderTerms>,
    private readonly value: (solution: Solution) => bigint | null,
  ) {}

  /**
   * Takes `proposal` (scoring `score` alone) in if it fits; true when it did. Worked out again
   * at the batch's prices it may lose a little to rounding, not more: a coincidence re-cut into
   * lots at an awkward ratio could keep little of its volume, and then exact scaling is tried.
   */
  add(proposal: Proposal, score: bigint): boolean {
    const { solution } = proposal;
    const trades = this.usedOrders.size + solution.trades.length;
    const swaps = this.usedPools.size + solution.swaps.length;
    if (settlementGas(trades, swaps) > MAX_SETTLEMENT_GAS) return false;
    if (solution.trades.some((t) => this.usedOrders.has(t.uid))) return false;
    if (solution.swaps.some((s) => this.usedPools.has(s.pool))) return false;
    const tokens = [...solution.clearingPrices.keys()];
    const least = score - (score >> LOSS_BITS);
    const attempts =
      tokens.length === 2
        ? this.attempts(proposal, tokens[0]!, tokens[1]!)
        : this.attemptsMany(proposal, tokens);
    for (const attempt of attempts) {
      const joined = attempt();
      const value = joined && this.value(joined.solution);
      if (joined === null || value === null || value < least) continue;
      for (const trade of joined.solution.trades) this.usedOrders.add(trade.uid);
      for (const swap of joined.solution.swaps) this.usedPools.add(swap.pool);
      for (const [token, amount] of this.amountsOf(joined.solution)) {
        if (amount > (this.largest.get(token) ?? 0n)) this.largest.set(token, amount);
      }
      joined.commit();
      this.parts.push(joined.solution);
      return true;
    }
    return false;
  }

  /** The batch as one solution, each component's prices reduced. */
  solution(): Solution {
    const prices = new Map<Address, bigint>();
    for (const component of new Set(this.components.values())) {
      const common = [...component.values()].reduce(gcd);
      for (const [token, price] of component) prices.set(token, price / common);
    }
    const trades = this.parts.flatMap((p) => p.trades);
    const swaps = this.parts.flatMap((p) => p.swaps);
    return {
      clearingPrices: prices,
      trades,
      swaps,
      gas: settlementGas(trades.length, swaps.length),
    };
  }

  /** Per token, the largest order amount (as signed) the contract multiplies its price by. */
  private amountsOf(solution: Solution): Map<Address, bigint> {
    const amounts = new Map<Address, bigint>();
    const note = (token: Address, amount: bigint) => {
      if (amount > (amounts.get(token) ?? 0n)) amounts.set(token, amount);
    };
    for (const trade of solution.trades) {
      const order = this.orders.get(trade.uid)!;
      note(order.sellToken, order.sellAmount);
      note(order.buyToken, order.buyAmount);
    }
    return amounts;
  }

  /** Whether `component` scaled by `factor` keeps every product within uint256. */
  private fits(component: Component, factor: bigint): boolean {
    for (const [token, price] of component) {
      if ((this.largest.get(token) ?? 0n) * price * factor > MAX_UINT256) return false;
    }
    return true;
  }

  /**
   * Ways to work the proposal out at prices agreeing with the batch, best first, each giving
   * the solution and how to record its prices, or null when it cannot.
   */
  private attempts(proposal: Proposal, a: Address, b: Address): (() => Joined | null)[] {
    const [ca, cb] = [this.components.get(a), this.components.get(b)];
    if (ca === undefined && cb === undefined) {
      const component: Component = new Map(proposal.solution.clearingPrices);
      const commit = () => {
        this.components.set(a, component);
        this.components.set(b, component);
      };
      return [() => ({ solution: proposal.solution, commit })];
    }
    const glue = () => this.glue(proposal, a, ca, b, cb);
    if (ca === cb) {
      const prices = new Map([
        [a, ca!.get(a)!],
        [b, ca!.get(b)!],
      ]);
      return [
        () => {
          const solution = proposal.reprice(prices);
          return solution && { solution, commit: () => {} };
        },
      ];
    }
    if (ca !== undefined && cb !== undefined) return [glue];
    const [kept, added, component] = ca !== undefined ? [a, b, ca] : [b, a, cb!];
    return [() => this.extend(proposal, kept, added, component), glue];
  }

  /**
   * Ways to take in a proposal over more than two tokens (a ring): at the batch's prices when
   * one component holds all its tokens; else, when no component holds two of them, by scaling
   * the proposal and each component it touches to agree exactly on the shared tokens.
   */
  private attemptsMany(proposal: Proposal, tokens: readonly Address[]): (() => Joined | null)[] {
    const touched = new Map<Component, Address[]>();
    for (const token of tokens) {
      const component = this.components.get(token);
      if (component === undefined) continue;
      const shared = touched.get(component);
      if (shared === undefined) touched.set(component, [token]);
      else shared.push(token);
    }
    const [only] = [...touched];
    if (touched.size === 1 && only![1].length === tokens.length) {
      const prices = new Map(tokens.map((token) => [token, only![0].get(token)!]));
      return [
        () => {
          const solution = proposal.reprice(prices);
          return solution && { solution, commit: () => {} };
        },
      ];
    }
    if ([...touched.values()].some((shared) => shared.length > 1)) return [];
    return [() => this.glueMany(proposal, touched)];
  }

  /**
   * Scales the proposal by β and each component it touches (through one token each) by its α,
   * so that they agree on every shared token: β the least multiple making each α whole.
   */
  private glueMany(proposal: Proposal, touched: ReadonlyMap<Component, Address[]>): Joined | null {
    const own = proposal.solution.clearingPrices;
    let beta = 1n;
    for (const [component, [token]] of touched) {
      const price = component.get(token!)!;
      const needed = price / gcd(price, own.get(token!)!);
      beta = (beta / gcd(beta, needed)) * needed;
    }
    const scaled = [...touched].map(([component, [token]]) => ({
      component,
      alpha: (beta * own.get(token!)!) / component.get(token!)!,
    }));
    if (scaled.some(({ component, alpha }) => !this.fits(component, alpha))) return null;
    const prices = new Map([...own].map(([token, price]) => [token, price * beta]));
    const solution = proposal.reprice(prices);
    if (solution === null) return null;
    return {
      solution,
      commit: () => {
        const merged: Component = new Map(prices);
        for (const { component, alpha } of scaled) {
          for (const [token, p] of component) merged.set(token, p * alpha);
        }
        for (const token of merged.keys()) this.components.set(token, merged);
      },
    };
  }

  /**
   * Keeps the batch's price of `kept` and gives `added` the price the proposal's own ratio
   * implies, rounded down or up, whichever the proposal still accepts.
   */
  private extend(
    proposal: Proposal,
    kept: Address,
    added: Address,
    component: Component,
  ): Joined | null {
    const keptPrice = component.get(kept)!;
    // Too coarse a price would let the rounding of the new one move the ratio noticeably.
    const factor =
      keptPrice >= PRICE_PRECISION ? 1n : (PRICE_PRECISION + keptPrice - 1n) / keptPrice;
    if (!this.fits(component, factor)) return null;
    const base = keptPrice * factor;
    const own = proposal.solution.clearingPrices;
    const exact = base * own.get(added)!;
    const down = exact / own.get(kept)!;
    for (const price of [down, down + 1n]) {
      if (price <= 0n) continue;
      // No trade in the batch prices `added` yet: only the proposal's own trades use it, and
      // `reprice` checks those.
      const solution = proposal.reprice(
        new Map([
          [kept, base],
          [added, price],
        ]),
      );
      if (solution === null) continue;
      return {
        solution,
        commit: () => {
          for (const [token, p] of component) component.set(token, p * factor);
          component.set(added, price);
          this.components.set(added, component);
        },
      };
    }
    return null;
  }

  /**
   * Scales both sides to the proposal's exact ratio: the batch's side by the proposal's price of
   * the shared token, the proposal by the batch's (over their common divisor).
   */
  private glue(
    proposal: Proposal,
    a: Address,
    ca: Component | undefined,
    b: Address,
    cb: Component | undefined,
  ): Joined | null {
    const own = proposal.solution.clearingPrices;
    const [pa, pb] = [own.get(a)!, own.get(b)!];
    // Scale ca by α and cb by β so that α·ca[a] : β·cb[b] = pa : pb.
    const left = ca === undefined ? pa : ca.get(a)!;
    const right = cb === undefined ? pb : cb.get(b)!;
    const u = left * pb;
    const v = right * pa;
    const common = gcd(u, v);
    const [alpha, beta] = [v / common, u / common];
    const componentA = ca ?? new Map([[a, pa]]);
    const componentB = cb ?? new Map([[b, pb]]);
    if (!this.fits(componentA, alpha) || !this.fits(componentB, beta)) return null;
    const prices = new Map([
      [a, componentA.get(a)! * alpha],
      [b, componentB.get(b)! * beta],
    ]);
    const solution = proposal.reprice(prices);
    if (solution === null) return null;
    return {
      solution,
      commit: () => {
        const merged: Component = new Map();
        for (const [token, p] of componentA) merged.set(token, p * alpha);
        for (const [token, p] of componentB) merged.set(token, p * beta);
        for (const token of merged.keys()) this.components.set(token, merged);
      },
    };
  }
}
