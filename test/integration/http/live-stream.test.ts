/**
 * GET /{network}/api/v1/stream and the ledger feed behind it: clients hear the network's ledger
 * move (an order placed, the auction that matched it, its trade) as server-sent events, only
 * once the read models show what they hear of; one ledger subscription serves every listener;
 * a stop ends the streams, so the server can close.
 */
import { expect } from 'chai';
import type { Ledger } from '../../../src/ledger/port.js';
import { createLedgerFeed, type FeedNote } from '../../../src/queries/ledger-feed.js';
import { sharedTestChain } from '../../support/chain.js';
import { placeTrades } from '../../support/place.js';
import { documentedHttp, expectMatchesSchema } from '../../support/openapi.js';
import { http, startTestService, suiteTestService } from '../../support/service.js';
import { fundedCowPair } from '../../support/settle.js';
import { waitFor, withDeadline } from '../../support/wait.js';

interface StreamClient {
  /** The first message: whether the network takes orders here. */
  about: { network: string; writable: boolean } | null;
  notes: FeedNote[];
  /** The reads made on hearing each note, by the note's index. */
  readsOnHearing: Map<number, number>;
  ended: Promise<void>;
  close(): void;
}

/** Reads a stream as the web app does; `onNote` runs (and is awaited) on each note it hears. */
async function openStream(
  url: string,
  onNote: (note: FeedNote) => Promise<number | null> = async () => null,
): Promise<StreamClient> {
  const abort = new AbortController();
  const response = await fetch(url, { signal: abort.signal });
  expect(response.status).to.equal(200);
  expect(response.headers.get('content-type')).to.match(/^text\/event-stream/);
  const client: StreamClient = {
    about: null,
    notes: [],
    readsOnHearing: new Map(),
    ended: Promise.resolve(),
    close: () => abort.abort(),
  };
  client.ended = (async () => {
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      for await (const chunk of response.body!) {
        buffered += decoder.decode(chunk as Uint8Array, { stream: true });
        let end: number;
        while ((end = buffered.indexOf('\n\n')) >= 0) {
          const message = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const data = message
            .split('\n')
            .filter((line) => line.startsWith('data: '))
            .map((line) => line.slice(6))
            .join('\n');
          if (data === '') continue;
          if (message.split('\n').includes('event: network')) {
            expect(client.about, 'one network event, first').to.equal(null);
            expect(client.notes).to.deep.equal([]);
            client.about = JSON.parse(data) as StreamClient['about'];
            continue;
          }
          const note = JSON.parse(data) as FeedNote;
          expectMatchesSchema('LedgerNote', note);
          const index = client.notes.push(note) - 1;
          const read = await onNote(note);
          if (read !== null) client.readsOnHearing.set(index, read);
        }
      }
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    }
  })();
  return client;
}

describe('HTTP: the live stream of the ledger', function () {
  this.timeout(90_000);
  const service = suiteTestService({ env: { DEVNET_AUCTION_INTERVAL_MS: '100' } });

  it('tells every client of the orders placed, the auction that matched them and the trades, each readable on hearing it', async () => {
    // On hearing of an auction, the client reads its competition at once, as the web app does.
    const readCompetition = async (note: FeedNote) =>
      note.type === 'AuctionClosed'
        ? (await http('GET', `${service().devnet}/api/v2/solver_competition/${note.auctionId}`))
            .status
        : null;
    const clients = [
      await openStream(`${service().devnet}/api/v1/stream`, readCompetition),
      await openStream(`${service().devnet}/api/v1/stream`),
    ];
    const mainnet = await openStream(`${service().mainnet}/api/v1/stream`);
    try {
      const [a, b] = await fundedCowPair(await sharedTestChain());
      await placeTrades(service().devnet, [a, b]);
      const heard = (client: StreamClient, type: string, uid?: string) =>
        client.notes.some((n) => n.type === type && (uid === undefined || n.uid === uid));
      await waitFor(() => clients.every((c) => heard(c, 'TradeSettled', a.uid)), {
        timeoutMs: 30_000,
        description: 'both clients to hear of the trade',
      });
      for (const client of clients) {
        expect(heard(client, 'OrderPlaced', a.uid)).to.equal(true);
        expect(heard(client, 'OrderPlaced', b.uid)).to.equal(true);
        expect(heard(client, 'AuctionClosed')).to.equal(true);
        const positions = client.notes.map((n) => n.position);
        expect(
          [...positions].sort((x, y) => service().ledger.comparePositions(x, y)),
        ).to.deep.equal(positions);
        expect(client.notes.every((n) => n.network === 'devnet')).to.equal(true);
      }
      const [reader] = clients;
      const auctions = reader!.notes.flatMap((n, i) => (n.type === 'AuctionClosed' ? [i] : []));
      expect(auctions.map((i) => reader!.readsOnHearing.get(i))).to.satisfy((statuses: number[]) =>
        statuses.every((s) => s === 200),
      );
      // Another network's stream heard none of it.
      expect(mainnet.notes).to.deep.equal([]);
      expect(clients[0]!.about).to.deep.equal({ network: 'devnet', writable: true });
    } finally {
      for (const client of [...clients, mainnet]) client.close();
    }
  });

  it('answers an unknown network with the reference’s error shape', async () => {
    const { status, body } = await documentedHttp('GET', `${service().url}/nowhere/api/v1/stream`);
    expect(status).to.equal(404);
    expect(body).to.have.property('errorType', 'NotFound');
  });

  it('says first whether the network takes orders here: a network without an RPC URL is read-only', async () => {
    const sepolia = await openStream(`${service().url}/sepolia/api/v1/stream`);
    try {
      await waitFor(() => sepolia.about !== null, {
        timeoutMs: 5_000,
        description: 'the network event',
      });
      expect(sepolia.about).to.deep.equal({ network: 'sepolia', writable: false });
    } finally {
      sepolia.close();
    }
  });

  it('serves every listener from one ledger subscription, and ends each when it stops', async () => {
    let subscriptions = 0;
    const ledger: Ledger = service().ledger;
    const feed = createLedgerFeed({
      subscribe: (after, options) => {
        subscriptions++;
        return ledger.subscribe(after, options);
      },
      readModelsPosition: () => null,
      projected: async () => true,
      onError: (error) => {
        throw error;
      },
    });
    const heard: FeedNote[][] = [[], [], []];
    let ended = 0;
    const listen = (network: string, i: number) =>
      feed.listen(network, { hear: (note) => heard[i]!.push(note), end: () => ended++ });
    listen('devnet', 0);
    listen('devnet', 1);
    const unlisten = listen('mainnet', 2);
    unlisten();
    const [a] = await fundedCowPair(await sharedTestChain());
    await placeTrades(service().devnet, [a]);
    await waitFor(() => heard.slice(0, 2).every((h) => h.some((n) => n.uid === a.uid)), {
      timeoutMs: 10_000,
      description: 'both devnet listeners to hear of the order',
    });
    expect(subscriptions).to.equal(1);
    expect(heard[2]).to.deep.equal([]);
    await feed.stop();
    expect(ended).to.equal(2);
  });

  it('ends open streams when the service stops, so it stops', async () => {
    const own = await startTestService();
    const client = await openStream(`${own.devnet}/api/v1/stream`);
    // Without the stream's end, the server's close would wait a minute for its connection.
    await withDeadline(own.stop(), 10_000, 'the service stopping with a stream open');
    await client.ended;
  });
});
