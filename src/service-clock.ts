/**
 * The service's clock: the wall clock moved forward by an offset kept in shared memory, so every
 * thread of the service (the serving one, the auctions') reads the same time. An operator's
 * service never moves it; tests do, to pass expiries without waiting for them.
 */

/** Shared memory holding the offset in milliseconds: one float64. */
export type ClockShift = SharedArrayBuffer;

export function newClockShift(): ClockShift {
  return new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT);
}

/** The clock `shift` moves: read on every call, so a move shows at once on every thread. */
export function shiftedClock(shift: ClockShift): () => Date {
  const offsetMs = new Float64Array(shift);
  return () => new Date(Date.now() + offsetMs[0]!);
}

/** Moves `shift`'s clock forward by `ms`. */
export function moveClockForward(shift: ClockShift, ms: number): void {
  if (ms < 0) throw new RangeError('the service clock only moves forward');
  new Float64Array(shift)[0]! += ms;
}
