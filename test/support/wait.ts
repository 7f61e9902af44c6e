/** Waiting on a condition with a deadline: tests never sleep for a fixed time. */

export interface WaitOptions {
  /** Give up (and throw) after this long. Default 5,000 ms. */
  timeoutMs?: number;
  /** How often to check. Default 10 ms. */
  intervalMs?: number;
  /** Named in the timeout error. */
  description?: string;
}

/** Resolves once `predicate` returns (or resolves to) true; rejects when the deadline passes. */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  { timeoutMs = 5_000, intervalMs = 10, description = 'condition' }: WaitOptions = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await predicate()) return;
    if (Date.now() >= deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Resolves as `promise` does, or rejects once `timeoutMs` passes first (a hang fails the test). */
export async function withDeadline<T>(
  promise: Promise<T>,
  timeoutMs: number,
  description: string,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${description}: not done after ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
