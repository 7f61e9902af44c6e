/**
 * An order's trades as the API shows them. Each read model is projected on its own: the orders
 * read model may already say an order is fulfilled while the trades read model has yet to take
 * in its trade.
 */
import { http } from './service.js';
import { waitFor } from './wait.js';

/** `GET {book}/api/v2/trades?orderUid=` once it shows any trade of the order. */
export async function shownTrades<T>(book: string, uid: string): Promise<T[]> {
  const trades = async () => (await http<T[]>('GET', `${book}/api/v2/trades?orderUid=${uid}`)).body;
  await waitFor(async () => (await trades()).length > 0, {
    description: `the trades of ${uid} shown`,
  });
  return trades();
}
