/** The tables several pages show: orders, and trades. */
import type { ComponentChildren } from 'preact';
import type { Trade } from './api.js';
import { OrderLink, Scroll, TokenAmount } from './components.js';
import { short } from './format.js';

interface OrderRow {
  uid: string;
  sellToken: string;
  buyToken: string;
  sellAmount: string;
  buyAmount: string;
}

/** Orders with their amounts, and columns of the caller's after them. */
export function OrdersTable<T extends OrderRow>({
  network,
  orders,
  label,
  columns,
}: {
  network: string;
  orders: readonly T[];
  label: string;
  columns: { heading: string; cell(order: T): ComponentChildren }[];
}) {
  return (
    <Scroll label={label}>
      <table>
        <thead>
          <tr>
            <th scope="col">order</th>
            <th scope="col">sells</th>
            <th scope="col">buys at least</th>
            {columns.map((c) => (
              <th key={c.heading} scope="col">
                {c.heading}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {orders.map((o) => (
            <tr key={o.uid}>
              <td>
                <OrderLink network={network} uid={o.uid} />
              </td>
              <td>
                <TokenAmount network={network} token={o.sellToken} atoms={o.sellAmount} />
              </td>
              <td>
                <TokenAmount network={network} token={o.buyToken} atoms={o.buyAmount} />
              </td>
              {columns.map((c) => (
                <td key={c.heading}>{c.cell(o)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </Scroll>
  );
}

/** Trades, each with its order, block and settlement transaction. */
export function TradesTable({
  network,
  trades,
  label,
}: {
  network: string;
  trades: readonly Trade[];
  label: string;
}) {
  return (
    <Scroll label={label}>
      <table>
        <thead>
          <tr>
            <th scope="col">order</th>
            <th scope="col">block</th>
            <th scope="col">sold</th>
            <th scope="col">bought</th>
            <th scope="col">transaction</th>
          </tr>
        </thead>
        <tbody>
          {trades.map((t) => (
            <tr key={`${t.blockNumber}/${t.logIndex}`}>
              <td>
                <OrderLink network={network} uid={t.orderUid} />
              </td>
              <td>{t.blockNumber}</td>
              <td>
                <TokenAmount network={network} token={t.sellToken} atoms={t.sellAmount} />
              </td>
              <td>
                <TokenAmount network={network} token={t.buyToken} atoms={t.buyAmount} />
              </td>
              <td class="mono" title={t.txHash ?? ''}>
                {t.txHash ? short(t.txHash) : '—'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Scroll>
  );
}
