/**
 * Where the app is: the URL's hash, so every page is a link and no path of the app can meet one
 * of the API's on this origin. `#/{network}/{page}/{id}`.
 */
import { useEffect, useState } from 'preact/hooks';

export type Page = 'auctions' | 'auction' | 'order' | 'account' | 'trade' | 'token';

export interface Route {
  network: string;
  page: Page;
  /** The auction id, order UID, account or token address the page is about. */
  id: string | null;
}

const PAGES: ReadonlySet<string> = new Set([
  'auctions',
  'auction',
  'order',
  'account',
  'trade',
  'token',
]);
export const DEFAULT_NETWORK = 'devnet';

export function parseRoute(hash: string): Route {
  const [network, page, id] = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  return {
    network: network || DEFAULT_NETWORK,
    page: page && PAGES.has(page) ? (page as Page) : 'auctions',
    id: id || null,
  };
}

export const href = (network: string, page: Page, id?: string | number): string =>
  `#/${encodeURIComponent(network)}/${page}${id === undefined ? '' : `/${encodeURIComponent(String(id))}`}`;

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}
