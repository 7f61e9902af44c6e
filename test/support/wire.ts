/**
 * Requests sent exactly as built (fetch adds no content type of its own to a byte body; a body
 * can go chunked, without a Content-Length), for tests of what a server makes of malformed ones.
 */

export interface WireRequest {
  method: string;
  /** Path and query as sent. */
  target: string;
  headers: Record<string, string>;
  body: Uint8Array | null;
  chunked: boolean;
}

export interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** Sends a request as is: no content type of fetch's own, the body chunked when asked. */
export async function send(
  baseUrl: string,
  wire: WireRequest,
  timeoutMs = 30_000,
): Promise<Answer> {
  const bodyless = wire.method === 'GET' || wire.method === 'HEAD';
  const payload = bodyless || wire.body === null ? undefined : wire.body;
  const response = await fetch(`${baseUrl}${wire.target}`, {
    method: wire.method,
    headers: wire.headers,
    signal: AbortSignal.timeout(timeoutMs),
    ...(payload === undefined
      ? {}
      : wire.chunked
        ? { body: chunks(payload), duplex: 'half' as const }
        : { body: payload }),
  } as RequestInit);
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    text: await response.text(),
  };
}

function chunks(bytes: Uint8Array): ReadableStream<Uint8Array> {
  const size = 1024;
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, at + size));
      at += size;
    },
  });
}

/** Describes a request for an assertion message. */
export function describeWire(wire: WireRequest): string {
  const body = wire.body ? Buffer.from(wire.body).toString('utf8') : '';
  const shown = body.length > 300 ? `${body.slice(0, 300)}… (${body.length} bytes)` : body;
  const target = wire.target.length > 300 ? `${wire.target.slice(0, 300)}…` : wire.target;
  return `${wire.method} ${target} ${JSON.stringify(wire.headers)} ${shown}`;
}
