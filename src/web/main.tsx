/** The web app: the header (pages, network, search, live state) and the page the hash names. */
import { render, type ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { connectLive, LiveContext, type LiveConnection, type LiveState } from './live.js';
import { NETWORKS } from './networks.js';
import { AccountPage } from './pages/account.js';
import { AuctionsPage } from './pages/auctions.js';
import { AuctionPage } from './pages/competition.js';
import { OrderPage } from './pages/order.js';
import { TokenPage } from './pages/token.js';
import { href, useRoute, type Route } from './routing.js';
import { SearchBox } from './search.js';
import './styles.css';

function LiveBanner({ state }: { state: LiveState }) {
  const text =
    state.kind === 'live'
      ? 'Live'
      : state.kind === 'connecting'
        ? 'Connecting to live updates…'
        : `Connection lost: retrying in ${state.inSeconds} s (attempt ${state.attempt})`;
  return (
    <p class={`live live-${state.kind}`} role="status" aria-live="polite" data-live={state.kind}>
      {text}
    </p>
  );
}

/** The Trade page and the SDK it signs with, loaded when first opened. */
function LazyTrade({ network }: { network: string }) {
  const [Page, setPage] = useState<ComponentType<{ network: string }> | null>(null);
  useEffect(() => {
    void import('./pages/trade.js').then((module) => setPage(() => module.default));
  }, []);
  return Page ? <Page network={network} /> : <p class="muted">Loading the trade page…</p>;
}

function Content({ route }: { route: Route }) {
  const { network, page, id } = route;
  switch (page) {
    case 'order':
      return id ? <OrderPage network={network} uid={id} /> : null;
    case 'auction':
      return id ? <AuctionPage network={network} id={id} /> : null;
    case 'account':
      return <AccountPage network={network} address={id} />;
    case 'token':
      return id ? <TokenPage network={network} token={id} /> : null;
    case 'trade':
      return <LazyTrade network={network} />;
    default:
      return <AuctionsPage network={network} />;
  }
}

function App() {
  const route = useRoute();
  const [live, setLive] = useState<LiveConnection | null>(null);
  const [state, setState] = useState<LiveState>({ kind: 'connecting' });
  useEffect(() => {
    const connection = connectLive(route.network, setState);
    setLive(connection);
    return () => connection.close();
  }, [route.network]);
  const link = (page: Route['page'], label: string) => (
    <a href={href(route.network, page)} aria-current={route.page === page ? 'page' : undefined}>
      {label}
    </a>
  );
  return (
    <LiveContext.Provider value={live}>
      <a
        class="skip"
        href="#main"
        onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}
      >
        Skip to content
      </a>
      <header>
        <a class="brand" href={href(route.network, 'auctions')}>
          batchbook
        </a>
        <nav aria-label="Pages">
          {link('auctions', 'Auctions')}
          {link('trade', 'Trade')}
          {link('account', 'Account')}
        </nav>
        <label class="network">
          Network{' '}
          <select
            value={route.network}
            onChange={(e) => {
              location.hash = href(
                (e.target as HTMLSelectElement).value,
                route.page === 'trade' ? 'trade' : 'auctions',
              );
            }}
          >
            {NETWORKS.map((n) => (
              <option key={n.name} value={n.name}>
                {n.label}
              </option>
            ))}
          </select>
        </label>
        <SearchBox network={route.network} />
        <LiveBanner state={state} />
      </header>
      <main id="main" tabIndex={-1}>
        <Content key={`${route.network}/${route.page}/${route.id ?? ''}`} route={route} />
      </main>
    </LiveContext.Provider>
  );
}

render(<App />, document.getElementById('app')!);
