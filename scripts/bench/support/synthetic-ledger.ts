/**
 * A synthetic ledger shaped like the real one: order streams (placed, then for some filled,
 * cancelled or pre-signed) and app-data registrations, for the benches that need many events.
 */
import { randomUUID } from 'node:crypto';
import {
  EVENT_VERSIONS,
  streams,
  type EventPayloads,
  type EventType,
  type Hex,
  type OrderPlacedV1,
} from '../../../src/domain/events.js';
import type { Ledger, NewEvent } from '../../../src/ledger/port.js';

/** Concurrent appenders in `fill`: enough to keep the ledger's batching full. */
const WRITERS = 256;

export const hex = (n: number, bytes: number): Hex =>
  `0x${n.toString(16).padStart(bytes * 2, '0')}`;
export const event = <T extends EventType>(type: T, data: EventPayloads[T]): NewEvent => ({
  id: randomUUID(),
  type,
  version: EVENT_VERSIONS[type],
  data,
});
export const chain = (n: number) => ({
  chainId: 1,
  blockNumber: 20_000_000 + n,
  logIndex: n % 50,
  blockHash: hex(n, 32),
  txHash: hex(n + 1, 32),
});

/** One order's stream: placed, then (for some) filled, cancelled or pre-signed. */
export function orderStream(n: number): { stream: string; events: NewEvent[] } {
  const owner = hex(0x1000 + (n % 5000), 20);
  const uid = `${hex(n, 32)}${owner.slice(2)}7fffffff` as Hex;
  const presign = n % 7 === 0;
  const fullAppData = n % 3 === 0 ? `{"appCode":"bench","metadata":{"n":${n}}}` : null;
  const placed: OrderPlacedV1 = {
    network: n % 4 === 0 ? 'xdai' : 'mainnet',
    uid,
    owner,
    order: {
      sellToken: hex(0xa0 + (n % 40), 20),
      buyToken: hex(0xf0 + (n % 40), 20),
      receiver: n % 9 === 0 ? hex(0xbeef, 20) : null,
      sellAmount: '1000000000000000000',
      buyAmount: String(2_500_000_000 + n),
      validTo: 2_147_483_647,
      appData: hex(n, 32),
      feeAmount: '0',
      kind: n % 2 ? 'sell' : 'buy',
      partiallyFillable: n % 5 === 0,
      sellTokenBalance: 'erc20',
      buyTokenBalance: 'erc20',
    },
    signingScheme: presign ? 'presign' : 'eip712',
    signature: presign ? '0x' : hex(n, 65),
    class: 'limit',
    creationDate: new Date(1_750_000_000_000 + n * 1000).toISOString(),
    settlementContract: '0x9008d19f58aabd9ed0d60971565aa8510560ab41',
    fullAppData,
    quoteId: null,
    quote: null,
    interactions: { pre: [], post: [] },
  };
  const { network } = placed;
  const events = [event('OrderPlaced', placed)];
  if (presign) {
    events.push(event('PreSignatureSet', { network, uid, owner, signed: true, chain: chain(n) }));
  }
  if (n % 2 === 0) {
    events.push(
      event('TradeSettled', {
        network,
        uid,
        owner,
        auctionId: n,
        sellToken: placed.order.sellToken,
        buyToken: placed.order.buyToken,
        sellAmount: '500000000000000000',
        buyAmount: String(1_250_000_000 + n),
        feeAmount: '0',
        settledAt: new Date(1_750_000_100_000 + n * 1000).toISOString(),
        chain: chain(n),
      }),
    );
  }
  if (n % 10 === 3) {
    events.push(
      event('OrderCancelled', {
        network,
        uid,
        source: 'api',
        reason: 'signed cancellation',
        cancelledAt: new Date(1_750_000_200_000 + n * 1000).toISOString(),
        by: owner,
      }),
    );
  }
  return { stream: streams.order(network, uid), events };
}

export function appDataStream(n: number): { stream: string; events: NewEvent[] } {
  const hash = hex(0xad000000 + n, 32);
  const data = {
    network: 'mainnet',
    hash,
    fullAppData: `{"registered":${n}}`,
    registeredAt: '2025-06-01T00:00:00.000Z',
  };
  return { stream: streams.appData('mainnet', hash), events: [event('AppDataRegistered', data)] };
}

/**
 * Appends `total` events (about one in twenty an app-data registration, the rest order streams)
 * from WRITERS concurrent writers; returns the count and the last position.
 */
export async function fill(
  ledger: Ledger,
  total: number,
): Promise<{ events: number; last: string }> {
  let next = 0;
  let written = 0;
  let last: string | null = null;
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (written < total) {
        const n = next++;
        const { stream, events } = n % 20 === 19 ? appDataStream(n) : orderStream(n);
        const batch = events.slice(0, total - written);
        if (batch.length === 0) return;
        written += batch.length;
        const { position } = await ledger.append(stream, batch, 'noStream');
        if (last === null || ledger.comparePositions(position, last) > 0) last = position;
      }
    }),
  );
  return { events: written, last: last! };
}
