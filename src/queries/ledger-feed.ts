/**
 * What the web app's live pages hear of the ledger: one catch-up subscription per server, shared
 * by every listener, turned into small notes ("auction 12 closed", "order 0x… traded") that say
 * what to read again through the API. A note goes out once the read models have applied its
 * event, so a client that reads on hearing it finds what it heard of.
 *
 * The subscription starts with the first listener, from where the read models stand then (older
 * events would only tell a new client what its first reads show), and lives until `stop`.
 */
import { upcast } from '../domain/upcast.js';
import type { DomainEvent } from '../domain/events.js';
import type { StoredEvent } from './order-history.js';

/** One note of the feed: an event's type and what it concerns. */
export interface FeedNote {
  /** The event's ledger position (opaque, increasing). */
  position: string;
  type: DomainEvent['type'];
  network: string;
  /** The auction an `AuctionClosed`, `SettlementSubmitted` or `SettlementFailed` is about. */
  auctionId?: number;
  /** The order an order event (placed, cancelled, traded, pre-signed, reverted) is about. */
  uid?: string;
  recordedAt: string;
}

export interface FeedListener {
  hear(note: FeedNote): void;
  /** The feed stops: the listener hears nothing more. */
  end(): void;
}

/** The ledger as the feed reads it (structurally: queries import no ledger). */
export interface FeedSource {
  subscribe(
    after: string | null,
    options: { streamPrefixes: readonly string[] },
  ): AsyncIterable<StoredEvent> & { close(): Promise<void> };
  /** Where the read models stand: the feed starts there. */
  readModelsPosition(): string | null;
  /** Resolves once the read models have applied `position` (bounded: false when they have not). */
  projected(position: string): Promise<boolean>;
  onError(error: unknown): void;
}

export interface LedgerFeed {
  /** Hears every note of `network` from now on, until the returned function is called. */
  listen(network: string, listener: FeedListener): () => void;
  stop(): Promise<void>;
}

/** The streams whose events the live pages show: orders, their chain facts, auctions. */
const FEED_STREAMS = ['order-', 'onchain-', 'auction-'] as const;

export function createLedgerFeed(source: FeedSource): LedgerFeed {
  const listeners = new Map<string, Set<FeedListener>>();
  let subscription: ReturnType<FeedSource['subscribe']> | null = null;
  let running: Promise<void> | null = null;

  async function follow(events: AsyncIterable<StoredEvent>): Promise<void> {
    for await (const stored of events) {
      let note: FeedNote | null;
      try {
        note = noteOf(stored);
      } catch (error) {
        // An event this code cannot read stops no one's feed: it is reported and passed over.
        source.onError(error);
        continue;
      }
      if (note === null) continue;
      const heard = listeners.get(note.network);
      if (!heard || heard.size === 0) continue;
      // Told before the read models show it, a client would read the old state; past the
      // bound it is told anyway (its next reads then catch up).
      await source.projected(stored.position);
      for (const listener of heard) listener.hear(note);
    }
  }

  return {
    listen(network, listener) {
      if (subscription === null) {
        subscription = source.subscribe(source.readModelsPosition(), {
          streamPrefixes: FEED_STREAMS,
        });
        running = follow(subscription).catch(source.onError);
      }
      const set = listeners.get(network) ?? new Set<FeedListener>();
      listeners.set(network, set);
      set.add(listener);
      return () => {
        set.delete(listener);
      };
    },
    async stop() {
      for (const set of listeners.values()) for (const listener of set) listener.end();
      listeners.clear();
      await subscription?.close();
      await running;
    },
  };
}

/** What an event concerns; null for events the live pages do not show. */
function noteOf(stored: StoredEvent): FeedNote | null {
  const event = upcast(stored.type, stored.version, stored.data);
  const base = {
    position: stored.position,
    type: event.type,
    recordedAt: stored.recordedAt.toISOString(),
  };
  switch (event.type) {
    case 'AuctionClosed':
      return { ...base, network: event.data.network, auctionId: event.data.id };
    case 'SettlementSubmitted':
    case 'SettlementFailed':
      return { ...base, network: event.data.network, auctionId: event.data.auctionId };
    case 'OrderPlaced':
    case 'OrderCancelled':
    case 'TradeSettled':
    case 'PreSignatureSet':
    case 'EthFlowOrderPlaced':
    case 'EthFlowOrderRefunded':
      return { ...base, network: event.data.network, uid: event.data.uid };
    case 'ChainFactReverted':
      return 'uid' in event.data.reverted.data
        ? { ...base, network: event.data.network, uid: event.data.reverted.data.uid }
        : null;
    default:
      return null;
  }
}
