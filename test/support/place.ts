/**
 * Placing signed trades on a running service's order book, as a client would, for suites that
 * need the orders in and are not about placing them.
 */
import { expect } from 'chai';
import { http } from './service.js';
import { orderBody, type SignedTradeInput } from './settle.js';

/**
 * POSTs each trade to `book` in turn, with the full app data its hash was signed over (default
 * `{}`); anything but 201 fails, with the answer.
 */
export async function placeTrades(
  book: string,
  trades: readonly SignedTradeInput[],
  { appData = '{}' }: { appData?: string } = {},
): Promise<void> {
  for (const trade of trades) {
    const body = orderBody(trade, { appData });
    const { status, text } = await http('POST', `${book}/api/v1/orders`, body);
    expect(status, text).to.equal(201);
  }
}
