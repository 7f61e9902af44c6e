/**
 * The service's stage timings (src/metrics/stage-timings.ts) as a table: per stage how often it
 * ran, its mean, p50, p99 and longest wall time. A synchronous stage's time is a stall of the
 * thread that ran it.
 */
import { percentile } from './load.js';
import { table } from './harness.js';

export function stageTable(stages: ReadonlyMap<string, readonly number[]>): string {
  const rows = [['stage', 'count', 'mean', 'p50', 'p99', 'max']];
  const fixed = (ms: number) => `${ms.toFixed(2)} ms`;
  for (const [stage, durations] of [...stages].sort(([a], [b]) => a.localeCompare(b))) {
    const sorted = [...durations].sort((a, b) => a - b);
    const mean = sorted.reduce((sum, ms) => sum + ms, 0) / sorted.length;
    rows.push([
      stage,
      String(sorted.length),
      fixed(mean),
      fixed(percentile(sorted, 50)),
      fixed(percentile(sorted, 99)),
      fixed(sorted.at(-1)!),
    ]);
  }
  return table(rows);
}
