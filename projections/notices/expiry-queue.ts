/**
 * Per network, the orders that may expire, soonest first (a binary min-heap), each by its
 * `expiresAfter` when pushed: a hold that changes later pushes the order again, and a pop
 * checks the order as it is then.
 */
import { expiresAfter, type OrderState } from './order-state.js';

export class ExpiryQueue {
  private readonly heap: { after: number; o: OrderState }[] = [];

  push(o: OrderState): void {
    const h = this.heap;
    h.push({ after: expiresAfter(o), o });
    for (let i = h.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.after <= h[i]!.after) break;
      [h[parent], h[i]] = [h[i]!, h[parent]!];
      i = parent;
    }
  }

  /** Removes and returns the soonest order if it was pushed to expire before `cut`. */
  popBefore(cut: number): OrderState | undefined {
    const h = this.heap;
    if (h.length === 0 || h[0]!.after >= cut) return undefined;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let least = i;
        if (l < h.length && h[l]!.after < h[least]!.after) least = l;
        if (r < h.length && h[r]!.after < h[least]!.after) least = r;
        if (least === i) break;
        [h[least], h[i]] = [h[i]!, h[least]!];
        i = least;
      }
    }
    return top.o;
  }
}
