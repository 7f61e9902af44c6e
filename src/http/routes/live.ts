/**
 * `GET /{network}/api/v1/stream`: the network's ledger as it moves, as server-sent events, for
 * the web app's live pages. Each message is a note of the shared ledger feed
 * (src/queries/ledger-feed.ts) as JSON: the event's type, the auction or order it concerns, its
 * position; the client reads what changed through the other endpoints. The first message, a
 * `network` event, says whether the network is live here (writable) or served read-only. Every
 * client hears the one subscription of the server; each may fall `MAX_BUFFERED_BYTES` behind before it is cut
 * off, and at most `MAX_STREAMS` are open at once (then 503 `TooManyStreams`).
 */
import Router from '@koa/router';
import type { HttpDeps } from '../deps.js';
import { ApiError } from '../errors.js';
import { createEventStream } from '../event-stream.js';
import type { NetworkState } from '../network.js';

const MAX_STREAMS = 1_000;
/** Some thousand notes: a client this far behind is not reading. */
const MAX_BUFFERED_BYTES = 256 * 1024;
/** Below the 60 s idle timeout of common proxies. */
const HEARTBEAT_MS = 15_000;
/** How soon a client's EventSource reconnects after losing the stream. */
const RECONNECT_MS = 1_000;

export function liveRouter(deps: HttpDeps): Router<NetworkState> {
  const router = new Router<NetworkState>();
  let open = 0;

  router.get('/api/v1/stream', (ctx) => {
    if (open >= MAX_STREAMS) {
      throw new ApiError('TooManyStreams', 'too many live streams are open; retry later');
    }
    open++;
    // Koa answers nothing more: the response is this stream's until the client leaves.
    ctx.respond = false;
    const { res, req } = ctx;
    req.socket.setNoDelay(true);
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
      // Never reused: once the stream ends (the server stopping) the connection goes with it.
      Connection: 'close',
    });
    const stream = createEventStream(res, { maxBufferedBytes: MAX_BUFFERED_BYTES });
    res.write(`retry: ${RECONNECT_MS}\n\n`);
    const { name } = ctx.state.network;
    const about = { network: name, writable: deps.liveNetworks.has(name) };
    res.write(`event: network\ndata: ${JSON.stringify(about)}\n\n`);
    const unlisten = deps.ledgerFeed.listen(name, {
      hear: (note) => stream.send(JSON.stringify(note), note.position),
      end: () => res.end(),
    });
    const heartbeat = setInterval(() => stream.comment('heartbeat'), HEARTBEAT_MS);
    res.once('close', () => {
      open--;
      clearInterval(heartbeat);
      unlisten();
    });
  });

  return router;
}
