/**
 * An order's limit price against the prices it traded at: on one axis of buy tokens per sell
 * token, the limit (the least a sell order accepts, the most a buy order pays, in the same
 * terms) and each clearing price; a trade at or beyond the limit is the surplus the order got.
 */

export interface PricePoint {
  label: string;
  price: number;
}

export function LimitPriceChart({
  limit,
  points,
  unit,
}: {
  limit: number;
  points: readonly PricePoint[];
  unit: string;
}) {
  if (!Number.isFinite(limit) || points.length === 0) return null;
  const all = [limit, ...points.map((p) => p.price)].filter(Number.isFinite);
  const [low, high] = [Math.min(...all), Math.max(...all)];
  const pad = (high - low || Math.abs(high) || 1) * 0.15;
  const [from, to] = [low - pad, high + pad];
  const width = 360;
  const x = (price: number) => 10 + ((price - from) / (to - from)) * (width - 20);
  const height = 40 + points.length * 18;
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={`Limit price ${limit.toPrecision(6)} ${unit}; traded at ${points.map((p) => p.price.toPrecision(6)).join(', ')}`}
      >
        <line x1={10} x2={width - 10} y1={height - 14} y2={height - 14} class="chart-axis" />
        <line x1={x(limit)} x2={x(limit)} y1={4} y2={height - 14} class="chart-limit" />
        <text x={x(limit) + 4} y={14} class="chart-label">
          limit {limit.toPrecision(6)}
        </text>
        {points.map((p, i) => {
          // A label right of a point near the right edge would run off the picture: left of it.
          const leftward = x(p.price) > width / 2;
          return (
            <g key={p.label}>
              <circle cx={x(p.price)} cy={26 + i * 18} r={5} class="chart-point" />
              <text
                x={x(p.price) + (leftward ? -8 : 8)}
                y={30 + i * 18}
                class="chart-label"
                text-anchor={leftward ? 'end' : 'start'}
              >
                {p.label}: {p.price.toPrecision(6)}
              </text>
            </g>
          );
        })}
        <text x={10} y={height - 2} class="chart-label">
          {from.toPrecision(4)}
        </text>
        <text x={width - 10} y={height - 2} class="chart-label" text-anchor="end">
          {to.toPrecision(4)} {unit}
        </text>
      </svg>
    </figure>
  );
}
