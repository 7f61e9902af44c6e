/**
 * A server-sent-event stream to one client (text/event-stream), holding at most
 * `maxBufferedBytes` the client has not taken yet: a client that reads slower than the stream
 * is written is cut off once that much waits for it, so a slow client costs only itself (it
 * reconnects, and reads afresh). Heartbeat comments keep idle connections open through proxies
 * and tell a client its connection still stands.
 */
import type { Writable } from 'node:stream';

export interface EventStream {
  /** One message; `id` becomes the client's `Last-Event-ID`. */
  send(data: string, id?: string): void;
  /** A comment line, which clients ignore: a heartbeat. */
  comment(text: string): void;
  /** True once cut off or ended. */
  readonly closed: boolean;
}

export function createEventStream(
  out: Writable,
  { maxBufferedBytes }: { maxBufferedBytes: number },
): EventStream {
  let cutOff = false;
  const write = (text: string) => {
    if (cutOff || out.destroyed || out.writableEnded) return;
    if (out.writableLength + Buffer.byteLength(text) > maxBufferedBytes) {
      cutOff = true;
      out.destroy();
      return;
    }
    out.write(text);
  };
  return {
    send(data, id) {
      // A line break inside the data would end the field: each line is a `data:` line of its own.
      const lines = data.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`);
      write(`${id === undefined ? '' : `id: ${id.replace(/[\r\n]/g, '')}\n`}${lines.join('')}\n`);
    },
    comment(text) {
      write(`: ${text.replace(/[\r\n]/g, ' ')}\n\n`);
    },
    get closed() {
      return cutOff || out.destroyed || out.writableEnded;
    },
  };
}
