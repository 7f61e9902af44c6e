/**
 * Steady client load for the fault suites: a few clients, each submitting a freshly signed order,
 * reading one accepted order back and listing its owner's orders, over and over, until stopped.
 * Each client waits for its answers, so the service sets the pace (signing an order costs the
 * client about as much as the service spends on it).
 * Every exchange is recorded with its start and end time, its status and errorType, or why it
 * got no answer within the deadline (a hang counts as no answer).
 */
import type { Wallet } from 'ethers';
import { CHAIN_ID, signOrder, type SignedOrder } from '../../support/signing.js';

export type ExchangeKind = 'post order' | 'get order' | 'account orders';

export interface Exchange {
  kind: ExchangeKind;
  start: number;
  end: number;
  /** null: no answer within the deadline. */
  status: number | null;
  errorType?: string;
  noAnswer?: string;
  /** The order posted or read. */
  uid?: string;
}

export interface LoadOptions {
  /** The network's base URL, e.g. http://127.0.0.1:8080/devnet */
  baseUrl: string;
  owners: readonly Wallet[];
  clients: number;
  /** Each exchange must be answered within this. */
  deadlineMs: number;
}

export interface Load {
  exchanges: Exchange[];
  /** Orders answered 201. */
  accepted: SignedOrder[];
  /** Every order posted, whatever the answer. */
  posted: SignedOrder[];
  stop(): Promise<void>;
}

export function startLoad(options: LoadOptions): Load {
  const exchanges: Exchange[] = [];
  const accepted: SignedOrder[] = [];
  const posted: SignedOrder[] = [];
  let stopped = false;
  let sequence = 0;

  const exchange = async (
    kind: ExchangeKind,
    path: string,
    uid: string,
    body?: unknown,
  ): Promise<Exchange> => {
    const start = Date.now();
    let record: Exchange;
    try {
      const response = await fetch(`${options.baseUrl}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(options.deadlineMs),
      });
      const text = await response.text();
      const errorType = response.ok ? undefined : errorTypeOf(text);
      record = { kind, start, end: Date.now(), status: response.status, uid, errorType };
    } catch (error) {
      const noAnswer = String((error as Error).cause ?? error);
      record = { kind, start, end: Date.now(), status: null, noAnswer, uid };
    }
    exchanges.push(record);
    return record;
  };

  const client = async () => {
    while (!stopped) {
      const n = sequence++;
      const owner = options.owners[n % options.owners.length]!;
      const order = await signOrder(owner, CHAIN_ID.devnet, {
        sellAmount: String(10n ** 18n + BigInt(n)),
      });
      posted.push(order);
      const { status } = await exchange('post order', '/api/v1/orders', order.uid, order.body);
      if (status === 201) accepted.push(order);
      const known = accepted[n % Math.max(accepted.length, 1)];
      if (known) await exchange('get order', `/api/v1/orders/${known.uid}`, known.uid);
      await exchange('account orders', `/api/v1/account/${order.owner}/orders`, order.uid);
    }
  };
  const running = Promise.all(Array.from({ length: options.clients }, client));

  return {
    exchanges,
    accepted,
    posted,
    async stop() {
      stopped = true;
      await running;
    },
  };
}

function errorTypeOf(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { errorType?: string }).errorType;
  } catch {
    return undefined;
  }
}
