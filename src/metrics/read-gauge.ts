/** Gauges read when scraped, from the database, the ledger, the projection thread or a node. */
import { Gauge, type Registry } from 'prom-client';

export type Sample = [labels: Record<string, string>, value: number];

/** How long one gauge's read may hold a scrape up. */
const READ_DEADLINE_MS = 2_000;

/**
 * A gauge set at each scrape to what `read` gives, every label set it gives and only those (a
 * replay's schemas come and go). A read that fails, answers null or takes longer than its
 * deadline leaves the last values: `/metrics` still answers, promptly, while the database or a
 * node is away.
 */
export function readGauge(
  registry: Registry,
  gauge: { name: string; help: string; labelNames?: string[] },
  read: () => Promise<Sample[] | null>,
): void {
  new Gauge({
    labelNames: [],
    ...gauge,
    registers: [registry],
    async collect() {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), READ_DEADLINE_MS);
      });
      const samples = await Promise.race([read().catch(() => null), deadline]);
      clearTimeout(timer);
      if (!samples) return;
      this.reset();
      for (const [labels, value] of samples) this.set(labels, value);
    },
  });
}
