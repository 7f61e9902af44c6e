/**
 * The wall time of named stages of this thread's work (an order's lookups and waits, an
 * auction's steps), kept only while a benchmark asks for it (BENCHMARKS.md, "Where an accepted
 * order's time goes"): otherwise each stage runs as if unwrapped, at the cost of one branch. A
 * stage of synchronous work is time the event loop served nothing else.
 */
import { performance } from 'node:perf_hooks';

const kept = new Map<string, number[]>();
let recording = false;

/** Starts (or stops) keeping stage times; what was kept is dropped either way. */
export function recordStageTimings(on: boolean): void {
  recording = on;
  kept.clear();
}

/** The durations (ms) kept per stage since the last call, which start afresh. */
export function takeStageTimings(): Map<string, number[]> {
  const taken = new Map(kept);
  kept.clear();
  return taken;
}

function keep(stage: string, began: number): void {
  const durations = kept.get(stage);
  const took = performance.now() - began;
  if (durations) durations.push(took);
  else kept.set(stage, [took]);
}

/** `work()`, its wall time kept under `stage` while recording. */
export async function timedStage<T>(stage: string, work: () => Promise<T>): Promise<T> {
  if (!recording) return work();
  const began = performance.now();
  try {
    return await work();
  } finally {
    keep(stage, began);
  }
}

/** `work()`, synchronous: its time kept under `stage` is time this thread's event loop stalled. */
export function timedStep<T>(stage: string, work: () => T): T {
  if (!recording) return work();
  const began = performance.now();
  try {
    return work();
  } finally {
    keep(stage, began);
  }
}
