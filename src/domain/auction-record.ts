/**
 * What an `AuctionClosed` records of its cut: the cut whole, or only what changed since an
 * earlier recorded auction of the network (its `base`): the orders that entered or whose fill
 * moved, those that left, the prices that moved or went, and the filtered orders that came or
 * went. Open orders that sit still are not written again every few seconds: the ledger grows
 * with what changes. Whoever reads the records applies each to its base's cut to get the cut
 * back whole, which `applyChanges` does.
 */
import type { Address, AuctionedOrder, FilterReason, OrderUid } from './events.js';

/** A cut as recorded: its orders (in the cut's order), prices and filtered orders. */
export interface CutRecord {
  orders: readonly AuctionedOrder[];
  prices: Readonly<Record<Address, string>>;
  filtered: readonly { uid: OrderUid; reason: FilterReason }[];
}

/** A cut as an `AuctionClosed` records it: whole (`base` null), or as changes since `base`. */
export interface CutChanges extends CutRecord {
  base: number | null;
  /** Orders of the base that this cut no longer holds. */
  left: OrderUid[];
  /** Tokens the base priced that this cut does not. */
  unpriced: Address[];
  /** Orders the base filtered out that this cut does not. */
  unfiltered: OrderUid[];
}

/** The whole of `cut`, as the first record of a chain of changes. */
export function wholeCut(cut: CutRecord): CutChanges {
  return { ...cut, base: null, left: [], unpriced: [], unfiltered: [] };
}

/** What changed from the cut of auction `base.id` to `cut`. */
export function changesSince(base: { id: number; cut: CutRecord }, cut: CutRecord): CutChanges {
  const before = {
    orders: new Map(base.cut.orders.map((o) => [o.uid, o.executed])),
    filtered: new Map(base.cut.filtered.map((f) => [f.uid, f.reason])),
  };
  const held = new Set(cut.orders.map((o) => o.uid));
  const filtered = new Set(cut.filtered.map((f) => f.uid));
  return {
    base: base.id,
    orders: cut.orders.filter((o) => before.orders.get(o.uid) !== o.executed),
    left: base.cut.orders.map((o) => o.uid).filter((uid) => !held.has(uid)),
    prices: Object.fromEntries(
      Object.entries(cut.prices).filter(
        ([token, price]) => base.cut.prices[token as Address] !== price,
      ),
    ),
    unpriced: (Object.keys(base.cut.prices) as Address[]).filter(
      (token) => cut.prices[token] === undefined,
    ),
    filtered: cut.filtered.filter((f) => before.filtered.get(f.uid) !== f.reason),
    unfiltered: base.cut.filtered.map((f) => f.uid).filter((uid) => !filtered.has(uid)),
  };
}

/** Whether `changes` say the cut is its base's again. */
export function unchanged(changes: CutChanges): boolean {
  return (
    changes.base !== null &&
    changes.orders.length === 0 &&
    changes.left.length === 0 &&
    Object.keys(changes.prices).length === 0 &&
    changes.unpriced.length === 0 &&
    changes.filtered.length === 0 &&
    changes.unfiltered.length === 0
  );
}

/**
 * The cut `changes` record, given the cut of its base (ignored for a whole record): the base's
 * orders in their order, those left dropped and those whose fill moved updated in place, then
 * the orders that entered; likewise the filtered orders; the base's prices, moved and gone
 * ones applied.
 */
export function applyChanges(base: CutRecord | null, changes: CutChanges): CutRecord {
  if (changes.base === null) return changes;
  if (base === null) throw new Error(`the record of auction ${changes.base} is missing`);
  return {
    orders: merged(base.orders, changes.orders, changes.left),
    filtered: merged(base.filtered, changes.filtered, changes.unfiltered),
    prices: Object.fromEntries([
      ...Object.entries(base.prices).filter(
        ([token]) => !changes.unpriced.includes(token as Address),
      ),
      ...Object.entries(changes.prices),
    ]),
  };
}

function merged<T extends { uid: OrderUid }>(
  base: readonly T[],
  changed: readonly T[],
  gone: readonly OrderUid[],
): T[] {
  const updates = new Map(changed.map((item) => [item.uid, item]));
  const out = new Set(gone);
  const kept = base
    .filter((item) => !out.has(item.uid))
    .map((item) => {
      const update = updates.get(item.uid);
      updates.delete(item.uid);
      return update ?? item;
    });
  return [...kept, ...updates.values()];
}
