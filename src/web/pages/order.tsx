/**
 * One order: every field the API gives, its status and competition status, its trades, its
 * limit price against the prices it traded at, and its history (every ledger event concerning
 * it, GET /orders/{uid}/events), read again as the live stream tells of it.
 */
import {
  api,
  book,
  type CompetitionStatus,
  type HistoryEntry,
  type Order,
  type Trade,
} from '../api.js';
import { LimitPriceChart, type PricePoint } from '../charts/limit-price.js';
import { AccountLink, Problem, Section, TokenAmount } from '../components.js';
import { decimalsOf, native, ratio, short, symbolOf, time } from '../format.js';
import { useLiveNotes } from '../live.js';
import { href } from '../routing.js';
import { TradesTable } from '../tables.js';
import { useApi } from '../use-api.js';

interface AuctionExcerpt {
  id: number;
  held: boolean;
  filtered: string | null;
  expiry: boolean;
  solutions: {
    solver: string;
    rank: number;
    score: string;
    isWinner: boolean;
    clearingPrices: Record<string, string>;
    trade: { sellAmount: string; buyAmount: string };
  }[];
}

/** One line on what a history event says of the order. */
function summary(network: string, entry: HistoryEntry): string {
  const data = entry.data;
  switch (entry.type) {
    case 'OrderPlaced':
      return `placed (${String(data.signingScheme)}, ${String(data.class)})`;
    case 'AuctionClosed': {
      const a = data as unknown as AuctionExcerpt;
      const parts = [a.held ? `auction ${a.id} held it` : `auction ${a.id}`];
      if (a.filtered) parts.push(`left it out: ${a.filtered}`);
      if (a.expiry) parts.push('found it expired');
      for (const s of a.solutions)
        parts.push(
          `${s.isWinner ? 'winner' : `rank ${s.rank}`} ${s.solver} traded it (score ${native(s.score)})`,
        );
      return parts.join('; ');
    }
    case 'SettlementSubmitted':
      return `settlement submitted in ${short(String(data.txHash))}`;
    case 'SettlementFailed':
      return `settlement failed: ${String(data.reason)}`;
    case 'TradeSettled':
      return `traded ${symbolOf(network, String(data.sellToken))} → ${symbolOf(network, String(data.buyToken))}`;
    case 'OrderCancelled':
      return `cancelled (${String(data.source)}: ${String(data.reason)})`;
    case 'PreSignatureSet':
      return data.signed ? 'pre-signed on chain' : 'pre-signature revoked';
    case 'ChainFactReverted':
      return 'a chain fact was taken back (reorg)';
    default:
      return entry.type;
  }
}

/** Buy units per sell unit: `buy` atoms for `sell` atoms of the order's tokens. */
function unitPrice(network: string, order: Order, sell: bigint, buy: bigint): number {
  const shift = decimalsOf(network, order.sellToken) - decimalsOf(network, order.buyToken);
  return ratio(buy, sell) * 10 ** shift;
}

export function OrderPage({ network, uid }: { network: string; uid: string }) {
  const path = `${book(network)}/orders/${encodeURIComponent(uid)}`;
  const order = useApi(`order/${uid}`, () => api<Order>(path));
  const status = useApi(`status/${uid}`, () => api<CompetitionStatus>(`${path}/status`));
  const trades = useApi(`trades/${uid}`, () =>
    api<Trade[]>(`/${network}/api/v2/trades?orderUid=${encodeURIComponent(uid)}&limit=100`),
  );
  const history = useApi(`events/${uid}`, () => api<HistoryEntry[]>(`${path}/events`));
  useLiveNotes((note) => {
    if (note.type === 'connected' || note.uid === uid || note.type === 'AuctionClosed') {
      order.reload();
      status.reload();
      trades.reload();
      history.reload();
    }
  });
  const o = order.data;
  const clearing: PricePoint[] = [];
  for (const entry of history.data ?? []) {
    if (entry.type !== 'AuctionClosed' || !o) continue;
    const excerpt = entry.data as unknown as AuctionExcerpt;
    for (const s of excerpt.solutions.filter((s) => s.isWinner)) {
      const [sellPrice, buyPrice] = [s.clearingPrices[o.sellToken], s.clearingPrices[o.buyToken]];
      if (sellPrice && buyPrice) {
        // Uniform clearing prices: sell atoms × sell price = buy atoms × buy price.
        clearing.push({
          label: `auction ${excerpt.id}`,
          price: unitPrice(network, o, BigInt(buyPrice), BigInt(sellPrice)),
        });
      }
    }
  }
  const executed: PricePoint[] =
    o && trades.data
      ? trades.data.map((t, i) => ({
          label: `trade ${i + 1}`,
          price: unitPrice(network, o, BigInt(t.sellAmountBeforeFees), BigInt(t.buyAmount)),
        }))
      : [];
  return (
    <>
      <h1>
        Order <span class="mono wrap">{uid}</span>
      </h1>
      <Problem problem={order.problem} what="The order could not be read" />
      {o ? (
        <>
          <p class="status-line">
            Status: <strong data-status={o.status}>{o.status}</strong>
            {status.data ? (
              <>
                {' '}
                · competition:{' '}
                <strong data-competition={status.data.type}>{status.data.type}</strong>
              </>
            ) : null}{' '}
            · owner <AccountLink network={network} address={o.owner} />
          </p>
          <p>
            Sells <TokenAmount network={network} token={o.sellToken} atoms={o.sellAmount} /> for at
            least <TokenAmount network={network} token={o.buyToken} atoms={o.buyAmount} /> ({o.kind}{' '}
            order, valid until {time(new Date(o.validTo * 1000).toISOString())}).
          </p>
          <Section title="Limit price and the prices it traded at">
            {clearing.length + executed.length > 0 ? (
              <LimitPriceChart
                limit={unitPrice(network, o, BigInt(o.sellAmount), BigInt(o.buyAmount))}
                points={[...clearing, ...executed]}
                unit={`${symbolOf(network, o.buyToken)} per ${symbolOf(network, o.sellToken)}`}
              />
            ) : (
              <p class="muted">It has not traded yet.</p>
            )}
          </Section>
          <Section title="Trades">
            <Problem problem={trades.problem} what="Its trades could not be read" />
            {trades.data?.length === 0 ? <p>No trade yet.</p> : null}
            {trades.data && trades.data.length > 0 ? (
              <TradesTable network={network} trades={trades.data} label="Trades of the order" />
            ) : null}
          </Section>
          <Section title="History">
            <Problem problem={history.problem} what="Its history could not be read" />
            <ol class="history">
              {history.data?.map((entry) => (
                <li key={entry.position} data-event={entry.type}>
                  <span class="event-type">{entry.type}</span>{' '}
                  <time dateTime={entry.recordedAt}>{time(entry.recordedAt)}</time>
                  <div>
                    {summary(network, entry)}
                    {entry.type === 'AuctionClosed' ? (
                      <>
                        {' '}
                        (
                        <a
                          href={href(
                            network,
                            'auction',
                            (entry.data as unknown as AuctionExcerpt).id,
                          )}
                        >
                          competition
                        </a>
                        )
                      </>
                    ) : null}
                  </div>
                  <details>
                    <summary>event data</summary>
                    <pre>{JSON.stringify(entry.data, null, 2)}</pre>
                  </details>
                </li>
              ))}
            </ol>
          </Section>
          <Section title="Every field">
            <dl class="fields">
              {Object.entries(o).map(([field, value]) => (
                <div key={field}>
                  <dt>{field}</dt>
                  <dd class="mono wrap">
                    {typeof value === 'object' && value !== null
                      ? JSON.stringify(value)
                      : String(value)}
                  </dd>
                </div>
              ))}
            </dl>
          </Section>
        </>
      ) : null}
    </>
  );
}
