/**
 * The write side's view of registered app-data documents: the `appdata-<network>-<hash>`
 * streams of the ledger. Documents are immutable (the hash is their keccak), so a found
 * document is cached for good.
 */
import { deterministicEventId } from '../domain/event-ids.js';
import { streams, type AppDataRegisteredV1, type Hex } from '../domain/events.js';
import type { Ledger } from '../ledger/port.js';
import { envelope } from '../domain/event-envelope.js';

export interface AppDataRegistry {
  find(network: string, hash: Hex): Promise<string | null>;
  /** Records the document; `created` is false when it was registered before. */
  register(
    network: string,
    hash: Hex,
    fullAppData: string,
    now: Date,
  ): Promise<{ created: boolean; position: string }>;
}

const CACHE_LIMIT = 10_000;

export function createAppDataRegistry(ledger: Ledger): AppDataRegistry {
  const known = new Map<string, string>();
  const remember = (key: string, document: string) => {
    if (known.size >= CACHE_LIMIT) known.delete(known.keys().next().value as string);
    known.set(key, document);
  };

  return {
    async find(network, hash) {
      const key = streams.appData(network, hash);
      const cached = known.get(key);
      if (cached !== undefined) return cached;
      const [first] = await ledger.readStream(key);
      if (!first) return null;
      const document = (first.data as AppDataRegisteredV1).fullAppData;
      remember(key, document);
      return document;
    },

    async register(network, hash, fullAppData, now) {
      const stream = streams.appData(network, hash);
      const data: AppDataRegisteredV1 = {
        network,
        hash,
        fullAppData,
        registeredAt: now.toISOString(),
      };
      const result = await ledger.append(
        stream,
        [
          envelope(
            { type: 'AppDataRegistered', data },
            deterministicEventId('AppDataRegistered', network, hash),
          ),
        ],
        'any',
      );
      remember(stream, fullAppData);
      return { created: result.written, position: result.position };
    },
  };
}
