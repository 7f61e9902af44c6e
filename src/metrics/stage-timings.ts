/**
 * The wall time of named stages of this thread's work (an order's lookups and waits, an
 * auction's steps), kept only while a benchmark asks for it (BENCHMARKS.md, "Where an accepted
 * order's time goes"): otherwise each stage runs as if unwrapped, at the cost of one branch. A
 * stage of synchronous work is time the event loop served nothing else.
 *
 * The service's other threads (the auctions') time their stages too: the main thread tells them
 * when to record, and they send it each duration, to be kept with its own.
 */
import { performance } from 'node:perf_hooks';
import { BroadcastChannel, isMainThread } from 'node:worker_threads';

const kept = new Map<string, number[]>();
let recording = false;

/** Between the threads: `{ recording }` from the main thread, `{ stage, took }` from the others. */
type Broadcast = { recording: boolean } | { stage: string; took: number };
const channel = new BroadcastChannel('batchbook.stage-timings');
// Listening costs nothing and keeps no thread alive.
channel.unref();
channel.onmessage = (event) => {
  const message = (event as { data: Broadcast }).data;
  if ('recording' in message) recording = message.recording;
  else if (isMainThread && recording) keepDuration(message.stage, message.took);
};

/** Starts (or stops) keeping stage times, on every thread; what was kept is dropped either way. */
export function recordStageTimings(on: boolean): void {
  recording = on;
  kept.clear();
  channel.postMessage({ recording: on } satisfies Broadcast);
}

/** The durations (ms) kept per stage since the last call, which start afresh. */
export function takeStageTimings(): Map<string, number[]> {
  const taken = new Map(kept);
  kept.clear();
  return taken;
}

function keepDuration(stage: string, took: number): void {
  const durations = kept.get(stage);
  if (durations) durations.push(took);
  else kept.set(stage, [took]);
}

function keep(stage: string, began: number): void {
  const took = performance.now() - began;
  if (isMainThread) keepDuration(stage, took);
  else channel.postMessage({ stage, took } satisfies Broadcast);
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
