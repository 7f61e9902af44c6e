/**
 * The winning settlement's flows: for each token, how much the orders sold and bought of it,
 * split into what met directly (a coincidence of wants: one order's sell is another's buy) and
 * what the settlement had to trade with pools (the imbalance). Bars share one scale, the
 * native-token value, so tokens compare.
 */
import type { CompetitionOrder } from '../api.js';
import { decimalsOf, native, ratio, symbolOf, units } from '../format.js';

interface TokenFlow {
  token: string;
  sold: bigint;
  bought: bigint;
  direct: bigint;
  pools: bigint;
  /** Native atoms of the larger side. */
  value: bigint;
}

const E18 = 10n ** 18n;

const inUnits = (network: string, token: string, atoms: bigint) =>
  units(atoms, decimalsOf(network, token));

export function tokenFlows(
  orders: readonly CompetitionOrder[],
  prices: Record<string, string>,
): TokenFlow[] {
  const flows = new Map<string, { sold: bigint; bought: bigint }>();
  const of = (token: string) => {
    const flow = flows.get(token) ?? { sold: 0n, bought: 0n };
    flows.set(token, flow);
    return flow;
  };
  for (const order of orders) {
    if (!order.sellToken || !order.buyToken) continue;
    of(order.sellToken).sold += BigInt(order.sellAmount);
    of(order.buyToken).bought += BigInt(order.buyAmount);
  }
  return [...flows].map(([token, { sold, bought }]) => {
    const direct = sold < bought ? sold : bought;
    const larger = sold > bought ? sold : bought;
    return {
      token,
      sold,
      bought,
      direct,
      pools: larger - direct,
      value: (larger * BigInt(prices[token] ?? '0')) / E18,
    };
  });
}

export function FlowsDiagram({
  network,
  orders,
  prices,
}: {
  network: string;
  orders: readonly CompetitionOrder[];
  prices: Record<string, string>;
}) {
  const flows = tokenFlows(orders, prices);
  if (flows.length === 0) return null;
  const widest = flows.reduce((max, f) => (f.value > max ? f.value : max), 0n);
  const row = 34;
  const left = 70;
  const span = 300;
  const height = flows.length * row + 24;
  const summary = flows
    .map(
      (f) =>
        `${symbolOf(network, f.token)}: ${f.direct === 0n ? 'none' : 'part'} met directly, ${f.pools === 0n ? 'none' : 'some'} through pools`,
    )
    .join('; ');
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${left + span + 10} ${height}`}
        role="img"
        aria-label={`Settlement flows. ${summary}`}
      >
        {flows.map((f, i) => {
          const larger = f.direct + f.pools;
          const width = widest === 0n ? span : Math.max(2, ratio(f.value, widest) * span);
          const directWidth = larger === 0n ? 0 : ratio(f.direct, larger) * width;
          const y = i * row + 6;
          return (
            <g key={f.token}>
              <text x={0} y={y + 16} class="chart-label">
                {symbolOf(network, f.token)}
              </text>
              <rect x={left} y={y} width={directWidth} height={22} class="flow-direct" />
              <rect
                x={left + directWidth}
                y={y}
                width={width - directWidth}
                height={22}
                class="flow-pools"
              />
            </g>
          );
        })}
        <g transform={`translate(${left}, ${height - 6})`} class="chart-legend">
          <rect x={0} y={-9} width={10} height={10} class="flow-direct" />
          <text x={14} y={0}>
            met directly (CoW)
          </text>
          <rect x={150} y={-9} width={10} height={10} class="flow-pools" />
          <text x={164} y={0}>
            through pools
          </text>
        </g>
      </svg>
      <figcaption>
        <table class="compact">
          <thead>
            <tr>
              <th scope="col">token</th>
              <th scope="col">sold by orders</th>
              <th scope="col">bought by orders</th>
              <th scope="col">met directly</th>
              <th scope="col">through pools</th>
              <th scope="col">value (native)</th>
            </tr>
          </thead>
          <tbody>
            {flows.map((f) => (
              <tr key={f.token}>
                <th scope="row">{symbolOf(network, f.token)}</th>
                <td>{inUnits(network, f.token, f.sold)}</td>
                <td>{inUnits(network, f.token, f.bought)}</td>
                <td>{inUnits(network, f.token, f.direct)}</td>
                <td>{inUnits(network, f.token, f.pools)}</td>
                <td>{native(f.value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </figcaption>
    </figure>
  );
}
