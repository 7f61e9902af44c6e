/**
 * The home page: the latest auction (its orders, tokens and prices), the last competitions with
 * every solution, and the surplus of each recent auction, all read again as the live stream
 * tells of auctions, settlements and trades.
 */
import { useRef } from 'preact/hooks';
import {
  api,
  book,
  type Auction,
  type AuctionSummary,
  type Competition,
  type Order,
} from '../api.js';
import { SurplusChart, type AuctionSurplus } from '../charts/surplus.js';
import { AccountLink, Loading, Problem, Section } from '../components.js';
import { counted, native, symbolOf } from '../format.js';
import { useLiveNotes } from '../live.js';
import { href } from '../routing.js';
import { tradeSurplus } from '../surplus.js';
import { OrdersTable } from '../tables.js';
import { useApi } from '../use-api.js';
import { CompetitionView } from './competition.js';

/** Competitions shown in full; the surplus picture covers more. */
const SHOWN = 5;
const CHARTED = 20;

interface Recent {
  competitions: Competition[];
  surplus: AuctionSurplus[];
}

async function readRecent(network: string): Promise<Recent> {
  const auctions = await api<AuctionSummary[]>(`${book(network)}/auctions?limit=${CHARTED}`);
  const competitions = await Promise.all(
    auctions.map((a) => api<Competition>(`/${network}/api/v2/solver_competition/${a.id}`)),
  );
  const traded = [
    ...new Set(
      competitions.flatMap((c) =>
        c.solutions.filter((s) => s.isWinner).flatMap((s) => s.orders.map((o) => o.id)),
      ),
    ),
  ];
  const orders = new Map<string, Order>();
  for (let i = 0; i < traded.length; i += 128) {
    const found = await api<{ order: Order }[]>(`${book(network)}/orders/by_uids`, {
      method: 'POST',
      body: JSON.stringify(traded.slice(i, i + 128)),
    });
    for (const { order } of found) orders.set(order.uid, order);
  }
  const surplus = competitions.map((c, i) => ({
    id: c.auctionId,
    cutAt: auctions[i]!.cutAt,
    surplus: c.solutions
      .filter((s) => s.isWinner)
      .flatMap((s) => s.orders)
      .reduce((sum, o) => {
        const order = orders.get(o.id);
        if (!order) return sum;
        return (
          sum +
          tradeSurplus(
            order,
            { sell: BigInt(o.sellAmount), buy: BigInt(o.buyAmount) },
            c.auction.prices,
          )
        );
      }, 0n),
  }));
  return { competitions: competitions.slice(0, SHOWN), surplus };
}

export function AuctionsPage({ network }: { network: string }) {
  const latest = useApi(`latest/${network}`, () => api<Auction>(`${book(network)}/auction`));
  const recent = useApi(`recent/${network}`, () => readRecent(network));
  // Notes come in bursts (an auction, its settlement, its trades): one read per burst.
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);
  useLiveNotes((note) => {
    if (
      ![
        'connected',
        'AuctionClosed',
        'SettlementSubmitted',
        'SettlementFailed',
        'TradeSettled',
      ].includes(note.type)
    )
      return;
    if (pending.current) return;
    pending.current = setTimeout(() => {
      pending.current = null;
      latest.reload();
      recent.reload();
    }, 150);
  });
  const auction = latest.data;
  return (
    <>
      <h1>Batch auctions</h1>
      <Section title="Latest auction">
        <Loading when={latest.loading && !auction} />
        {latest.problem?.status === 404 ? (
          <p>No auction has been cut on this network yet.</p>
        ) : (
          <Problem problem={latest.problem} what="The latest auction could not be read" />
        )}
        {auction ? (
          <div class="card">
            <p>
              <a href={href(network, 'auction', auction.id)}>Auction {auction.id}</a> at block{' '}
              {auction.block}: {counted(auction.orders.length, 'order')},{' '}
              {counted(Object.keys(auction.prices).length, 'priced token')}.
            </p>
            <h3>Prices (native token per whole token)</h3>
            <ul class="chips">
              {Object.entries(auction.prices).map(([token, price]) => (
                <li key={token}>
                  <a href={href(network, 'token', token)}>{symbolOf(network, token)}</a>:{' '}
                  {native(price)}
                </li>
              ))}
            </ul>
            {auction.orders.length > 0 ? (
              <OrdersTable
                network={network}
                orders={auction.orders}
                label="Orders of the latest auction"
                columns={[
                  {
                    heading: 'owner',
                    cell: (o) => <AccountLink network={network} address={o.owner} />,
                  },
                  { heading: 'kind', cell: (o) => o.kind },
                  { heading: 'class', cell: (o) => o.class },
                ]}
              />
            ) : null}
          </div>
        ) : null}
      </Section>
      <Section title="Surplus per auction">
        <Problem problem={recent.problem} what="Recent auctions could not be read" />
        {recent.data ? (
          <SurplusChart network={network} auctions={recent.data.surplus} />
        ) : (
          <Loading when={recent.loading} />
        )}
      </Section>
      <Section title="Last competitions">
        {recent.data?.competitions.map((c) => (
          <CompetitionView key={c.auctionId} network={network} competition={c} />
        ))}
        {recent.data?.competitions.length === 0 ? <p>No competition yet.</p> : null}
      </Section>
    </>
  );
}
