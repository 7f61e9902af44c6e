/**
 * The engine's in-process view of each projector's checkpoint, and the waiters of `waitFor`.
 * Every accepted order waits here for its own event to be projected, so waiting costs a timer
 * and a set entry, and each checkpoint move wakes exactly the waiters it satisfies.
 */
export interface BoardHooks {
  /** Told of every checkpoint recorded (an engine on another thread relays them). */
  onSet?(projector: string, position: string | null): void;
  /** Told of every wait that has to wait: a projector in no hurry then knows to hurry. */
  onWait?(projector: string, position: string): void;
}

interface Waiter {
  position: string;
  resolve(reached: boolean): void;
  timer: NodeJS.Timeout;
}

export class CheckpointBoard {
  private readonly positions = new Map<string, string | null>();
  private readonly waiters = new Map<string, Set<Waiter>>();
  private closed = false;

  constructor(
    projectors: readonly string[],
    private readonly compare: (a: string, b: string) => number,
    private readonly hooks: BoardHooks = {},
  ) {
    for (const name of projectors) {
      this.positions.set(name, null);
      this.waiters.set(name, new Set());
    }
  }

  has(projector: string): boolean {
    return this.positions.has(projector);
  }

  get(projector: string): string | null {
    this.known(projector);
    return this.positions.get(projector) ?? null;
  }

  /** Records a checkpoint (it may move back: a rebuilt read model starts again from null). */
  set(projector: string, position: string | null): void {
    this.known(projector);
    this.positions.set(projector, position);
    this.hooks.onSet?.(projector, position);
    if (position === null) return;
    for (const waiter of this.waiters.get(projector)!) {
      if (this.compare(position, waiter.position) >= 0) this.settle(projector, waiter, true);
    }
  }

  waitFor(projector: string, position: string, timeoutMs: number): Promise<boolean> {
    const current = this.get(projector);
    if (current !== null && this.compare(current, position) >= 0) return Promise.resolve(true);
    if (this.closed || timeoutMs <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        position,
        resolve,
        timer: setTimeout(() => this.settle(projector, waiter, false), timeoutMs),
      };
      this.waiters.get(projector)!.add(waiter);
      this.hooks.onWait?.(projector, position);
    });
  }

  /** Answers every pending wait with false; later waits answer false at once. */
  close(): void {
    this.closed = true;
    for (const [projector, waiters] of this.waiters) {
      for (const waiter of waiters) this.settle(projector, waiter, false);
    }
  }

  private settle(projector: string, waiter: Waiter, reached: boolean): void {
    clearTimeout(waiter.timer);
    this.waiters.get(projector)!.delete(waiter);
    waiter.resolve(reached);
  }

  private known(projector: string): void {
    if (!this.positions.has(projector)) throw new Error(`unknown projector: ${projector}`);
  }
}
