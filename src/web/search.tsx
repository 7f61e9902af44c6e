/**
 * The search box: an order UID goes to its order, an address to its token page (a token this
 * app knows) or its account, a transaction hash to the competition whose settlement it was, or
 * to the order it traded.
 */
import { useState } from 'preact/hooks';
import { api, ApiProblem, book, type Competition, type Order } from './api.js';
import { Problem } from './components.js';
import { knownToken } from './networks.js';
import { href } from './routing.js';

async function destination(network: string, text: string): Promise<string> {
  const query = text.trim().toLowerCase();
  if (/^0x[0-9a-f]{112}$/.test(query)) return href(network, 'order', query);
  if (/^0x[0-9a-f]{40}$/.test(query))
    return href(network, knownToken(network, query) ? 'token' : 'account', query);
  if (/^0x[0-9a-f]{64}$/.test(query)) {
    try {
      const competition = await api<Competition>(
        `/${network}/api/v2/solver_competition/by_tx_hash/${query}`,
      );
      return href(network, 'auction', competition.auctionId);
    } catch (error) {
      if (!(error instanceof ApiProblem) || error.status !== 404) throw error;
    }
    const [order] = await api<Order[]>(`${book(network)}/transactions/${query}/orders`);
    if (order) return href(network, 'order', order.uid);
    throw new ApiProblem(
      404,
      'NotFound',
      `no settlement of ${network} is known by transaction ${query}`,
    );
  }
  throw new ApiProblem(
    0,
    'NotRecognised',
    'enter an order UID (56 bytes), an address (20 bytes) or a transaction hash (32 bytes), as 0x-hex',
  );
}

export function SearchBox({ network }: { network: string }) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  return (
    <form
      role="search"
      class="search"
      onSubmit={(event) => {
        event.preventDefault();
        setProblem(null);
        destination(network, text).then(
          (to) => {
            location.hash = to;
            setText('');
          },
          (error: unknown) =>
            setProblem(
              error instanceof ApiProblem ? error : new ApiProblem(0, 'Error', String(error)),
            ),
        );
      }}
    >
      <label for="search">Search</label>
      <input
        id="search"
        type="search"
        placeholder="order UID, address or tx hash"
        value={text}
        onInput={(e) => setText((e.target as HTMLInputElement).value)}
      />
      <button type="submit">Go</button>
      <Problem problem={problem} />
    </form>
  );
}
