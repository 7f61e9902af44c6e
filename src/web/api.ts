/**
 * The API over HTTP, as any client reads it: JSON in and out, and every refusal turned into a
 * readable problem (the order book's `{errorType, description}`, the token endpoints' `{message}`,
 * or a server that could not be reached).
 */

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly errorType: string,
    readonly description: string,
  ) {
    super(`${errorType}: ${description}`);
    this.name = 'ApiProblem';
  }
}

/** Whatever was thrown, as a problem to show. */
export function asApiProblem(error: unknown): ApiProblem {
  if (error instanceof ApiProblem) return error;
  return new ApiProblem(0, 'Error', error instanceof Error ? error.message : String(error));
}

/** The problem an answer's body states, else one named after its status. */
async function problemOf(response: Response): Promise<ApiProblem> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as {
      errorType?: unknown;
      description?: unknown;
      message?: unknown;
    };
    if (typeof body.errorType === 'string') {
      return new ApiProblem(response.status, body.errorType, String(body.description ?? ''));
    }
    if (typeof body.message === 'string') {
      return new ApiProblem(response.status, `HTTP ${response.status}`, body.message);
    }
  } catch {
    // Not JSON: the status and the text say what there is to say.
  }
  return new ApiProblem(response.status, `HTTP ${response.status}`, text.slice(0, 200));
}

/** A request to this origin's API; the parsed JSON answer, or the problem it stated. */
export async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      ...init,
      headers: {
        Accept: 'application/json',
        ...(init.body ? { 'Content-Type': 'application/json' } : {}),
        ...init.headers,
      },
    });
  } catch {
    throw new ApiProblem(
      0,
      'NetworkError',
      'the server could not be reached; check the connection and retry',
    );
  }
  if (!response.ok) throw await problemOf(response);
  return (await response.json()) as T;
}

/** The order book's base path on a network. */
export const book = (network: string): string => `/${network}/api/v1`;

// ---- the shapes this app reads (the reference's, and batchbook's own endpoints) -----------

export interface Order {
  uid: string;
  owner: string;
  sellToken: string;
  buyToken: string;
  receiver?: string | null;
  sellAmount: string;
  buyAmount: string;
  validTo: number;
  feeAmount: string;
  kind: 'sell' | 'buy';
  partiallyFillable: boolean;
  class: string;
  status: string;
  creationDate: string;
  executedSellAmount: string;
  executedBuyAmount: string;
  signingScheme: string;
  [field: string]: unknown;
}

export interface AuctionOrder {
  uid: string;
  owner: string;
  sellToken: string;
  buyToken: string;
  sellAmount: string;
  buyAmount: string;
  kind: 'sell' | 'buy';
  class: string;
  executed: string;
}

export interface Auction {
  id: number;
  block: number;
  orders: AuctionOrder[];
  prices: Record<string, string>;
}

export interface AuctionSummary {
  id: number;
  block: number;
  cutAt: string;
  orders: number;
  filtered: number;
  solutions: number;
}

export interface CompetitionOrder {
  id: string;
  sellAmount: string;
  buyAmount: string;
  sellToken?: string;
  buyToken?: string;
}

export interface Solution {
  solverAddress: string;
  score: string;
  ranking: number;
  clearingPrices: Record<string, string>;
  orders: CompetitionOrder[];
  isWinner: boolean;
  filteredOut: boolean;
  txHash: string | null;
  referenceScore: string | null;
}

export interface Competition {
  auctionId: number;
  auctionStartBlock: number;
  auctionDeadlineBlock: number;
  transactionHashes: string[];
  auction: { orders: string[]; prices: Record<string, string> };
  solutions: Solution[];
}

export interface Trade {
  blockNumber: number;
  logIndex: number;
  orderUid: string;
  owner: string;
  sellToken: string;
  buyToken: string;
  sellAmount: string;
  sellAmountBeforeFees: string;
  buyAmount: string;
  txHash: string | null;
}

export interface HistoryEntry {
  position: string;
  stream: string;
  revision: number;
  type: string;
  version: number;
  recordedAt: string;
  data: Record<string, unknown>;
}

export interface Notice {
  id: string;
  type: string;
  message: string;
  timestamp: string;
  metadata: Record<string, unknown>;
}

export interface CompetitionStatus {
  type: string;
  value?: { solver: string; executedAmounts?: { sell: string; buy: string } }[];
}
