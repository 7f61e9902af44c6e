/**
 * A real external solver on 127.0.0.1 for tests and the demo: it reads the `SolveRequest` POSTed
 * to it and answers with the built-in solver's solutions (its swaps as transfer + pair `swap`
 * calls), or with whatever `respond` returns, with `status`; or, `silent`, never at all.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { solve } from '../../src/domain/solver/solve.js';
import {
  encodeSolution,
  solverAuctionOf,
  type SolveRequest,
  type SolveResponse,
} from '../../src/auction/solver-wire.js';
import { swapInteractions } from '../../src/auction/swap-interactions.js';

export interface SolverServerOptions {
  /** Never answer (to miss every deadline): requests are held open until `close()`. */
  silent?: boolean;
  /**
   * The answer for a request, sent as JSON; a string is sent as it is (e.g. to send invalid
   * JSON). Default: the built-in solver's answer (`builtinAnswer`).
   */
  respond?: (request: SolveRequest) => unknown | Promise<unknown>;
  /** HTTP status of every answer. Default 200. */
  status?: number;
}

export interface SolverServer {
  /** The URL to POST rounds to. */
  url: string;
  /** Every request received, parsed, in order. */
  requests: SolveRequest[];
  /** Stops listening and drops open connections; calling it again waits for the same close. */
  close(): Promise<void>;
}

/** What the built-in solver answers to `request`, in the wire format. */
export function builtinAnswer(request: SolveRequest): SolveResponse {
  const auction = solverAuctionOf(request);
  return {
    solutions: solve(auction).map((solution) =>
      encodeSolution({
        ...solution,
        interactions: swapInteractions(solution.swaps, auction.pools, request.settlementContract),
      }),
    ),
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startSolverServer(options: SolverServerOptions = {}): Promise<SolverServer> {
  const { silent = false, respond = builtinAnswer, status = 200 } = options;
  const requests: SolveRequest[] = [];

  const server = createServer((req, res) => {
    void (async () => {
      try {
        const request = JSON.parse(await readBody(req)) as SolveRequest;
        requests.push(request);
        if (silent) return;
        const answer = await respond(request);
        const body = typeof answer === 'string' ? answer : JSON.stringify(answer);
        res
          .writeHead(status, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          })
          .end(body);
      } catch (error) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/solve`,
    requests,
    close: () =>
      (closed ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      })),
  };
}
