/** Reading a Prometheus text exposition, as a scraper does. */

export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

export function parseExposition(text: string): PromSample[] {
  return text.split('\n').flatMap((line): PromSample[] => {
    if (line.startsWith('#') || line.trim() === '') return [];
    const match = LINE.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) {
      labels[key!] = value!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    return [{ name: match[1]!, labels, value: Number(match[3]) }];
  });
}

/** The samples of `name` whose labels include `labels`. */
export function samplesOf(
  samples: readonly PromSample[],
  name: string,
  labels: Record<string, string> = {},
): PromSample[] {
  return samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
}

/** The sum of the values of `name`'s samples whose labels include `labels` (0: none). */
export function total(
  samples: readonly PromSample[],
  name: string,
  labels: Record<string, string> = {},
): number {
  return samplesOf(samples, name, labels).reduce((sum, s) => sum + s.value, 0);
}
