/** Surplus per auction over time: one bar per auction (oldest left), its height the surplus. */
import { native } from '../format.js';
import { href } from '../routing.js';

export interface AuctionSurplus {
  id: number;
  cutAt: string;
  /** Native-token atoms. */
  surplus: bigint;
}

export function SurplusChart({
  network,
  auctions,
}: {
  network: string;
  auctions: readonly AuctionSurplus[];
}) {
  if (auctions.length === 0) return <p class="muted">No auction has been recorded yet.</p>;
  const ordered = [...auctions].sort((a, b) => a.id - b.id);
  const largest = ordered.reduce((max, a) => (a.surplus > max ? a.surplus : max), 0n);
  const [width, height, bottom] = [360, 140, 20];
  const step = (width - 20) / ordered.length;
  const scale = (value: bigint) =>
    largest === 0n
      ? 0
      : (Number((value * 1_000_000n) / largest) / 1_000_000) * (height - bottom - 16);
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={`Surplus of the last ${ordered.length} auctions, largest ${native(largest)} native tokens`}
      >
        <line
          x1={10}
          x2={width - 10}
          y1={height - bottom}
          y2={height - bottom}
          class="chart-axis"
        />
        {ordered.map((a, i) => {
          const h = scale(a.surplus);
          return (
            <g key={a.id}>
              <title>{`auction ${a.id}: ${native(a.surplus)} native`}</title>
              <rect
                x={10 + i * step + 1}
                y={height - bottom - h}
                width={Math.max(1, step - 2)}
                height={h}
                class="chart-bar"
              />
            </g>
          );
        })}
        <text x={10} y={12} class="chart-label">
          {native(largest)} native
        </text>
        <text x={10} y={height - 4} class="chart-label">
          {new Date(ordered[0]!.cutAt).toISOString().slice(11, 19)}
        </text>
        <text x={width - 10} y={height - 4} class="chart-label" text-anchor="end">
          {new Date(ordered.at(-1)!.cutAt).toISOString().slice(11, 19)} UTC
        </text>
      </svg>
      <figcaption>
        <details>
          <summary>Surplus of each auction</summary>
          <ul class="plain">
            {ordered.map((a) => (
              <li key={a.id}>
                <a href={href(network, 'auction', a.id)}>auction {a.id}</a>: {native(a.surplus)}{' '}
                native
              </li>
            ))}
          </ul>
        </details>
      </figcaption>
    </figure>
  );
}
