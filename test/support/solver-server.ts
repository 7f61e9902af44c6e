/**
 * A real solver engine on 127.0.0.1 for tests and the demo, speaking the published solver engine
 * API: `POST /solve` takes an `Auction` and answers with the built-in solver's solutions (or
 * whatever `respond` returns, with `status`; or, `silent`, never at all); `POST /notify` takes
 * feedback, which it keeps.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBuiltinSolver } from '../../src/auction/builtin-solver.js';
import type { Auction, Notification } from '../../src/auction/solver-api/types.js';
import type { Address } from '../../src/domain/events.js';
import { networkByName } from '../../src/domain/networks.js';
import { answerJson } from './solver-wire.js';

export interface SolverServerOptions {
  /** Never answer `/solve` (to miss every deadline): requests are held open until `close()`. */
  silent?: boolean;
  /**
   * The answer to an auction, sent as JSON; a string is sent as it is (e.g. to send invalid
   * JSON). Default: the built-in solver's answer (`builtinAnswer`).
   */
  respond?: (auction: Auction) => unknown | Promise<unknown>;
  /** HTTP status of every answer. Default 200. */
  status?: number;
}

export interface SolverServer {
  /** The engine's base URL, as `EXTERNAL_SOLVERS` names it. */
  url: string;
  /** Every auction received, parsed, in order. */
  requests: Auction[];
  /** Every notification received, in order. */
  notifications: Notification[];
  /** Stops listening and drops open connections; calling it again waits for the same close. */
  close(): Promise<void>;
}

const DEVNET_WETH = networkByName('devnet')!.wrappedNativeToken;
const builtin = createBuiltinSolver(`0x${'0'.repeat(40)}` as Address, DEVNET_WETH, {
  slippageBps: 0n,
});

/** What the built-in solver answers to `auction`, as JSON an engine sends. */
export async function builtinAnswer(auction: Auction): Promise<unknown> {
  return answerJson(await builtin.solve(auction, new AbortController().signal));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startSolverServer(options: SolverServerOptions = {}): Promise<SolverServer> {
  const { silent = false, respond = builtinAnswer, status = 200 } = options;
  const requests: Auction[] = [];
  const notifications: Notification[] = [];

  const server = createServer((req, res) => {
    void (async () => {
      try {
        const body = JSON.parse(await readBody(req)) as unknown;
        if (req.url === '/notify') {
          notifications.push(body as Notification);
          res.writeHead(200).end();
          return;
        }
        if (req.url !== '/solve') {
          res.writeHead(404).end();
          return;
        }
        requests.push(body as Auction);
        if (silent) return;
        const answer = await respond(body as Auction);
        const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
        res
          .writeHead(status, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
          })
          .end(text);
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
    url: `http://127.0.0.1:${port}`,
    requests,
    notifications,
    close: () =>
      (closed ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      })),
  };
}
