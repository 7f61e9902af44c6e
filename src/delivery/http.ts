/**
 * The HTTP client of the webhook, web-push and Telegram channels: node:http(s) with keep-alive
 * agents owned by the worker (closed when it stops). Measured here, it sends three times the
 * requests per second of Node 20's fetch to a local receiver.
 *
 * Redirects are not followed (a 3xx is just an answer). Answers are read up to 64 KiB, enough
 * for an error message; the rest is discarded. A URL that is not http(s) fails for good.
 *
 * A client for subscribers' URLs (webhooks, push endpoints) is given a `DestinationPolicy`: it
 * connects only to addresses that policy let through (destination.ts). The Telegram channel's
 * client has none: its URL is the operator's (TELEGRAM_API_URL), not a subscriber's.
 */
import http from 'node:http';
import https from 'node:https';
import { DeliveryError } from './channel.js';
import { pinnedLookup, vetDestination, type DestinationPolicy } from './destination.js';

export interface HttpAnswer {
  status: number;
  /** The answer's body, up to `MAX_ANSWER_BYTES`. */
  text: string;
}

export interface HttpClient {
  post(
    url: string,
    options: { headers: Record<string, string>; body: Buffer; signal: AbortSignal },
  ): Promise<HttpAnswer>;
  close(): void;
}

const MAX_ANSWER_BYTES = 64 * 1024;

/** `destinations`: where the client may connect; absent, wherever its URLs point. */
export function createHttpClient(destinations?: DestinationPolicy): HttpClient {
  const agents = {
    'http:': new http.Agent({ keepAlive: true, scheduling: 'lifo' }),
    'https:': new https.Agent({ keepAlive: true, scheduling: 'lifo' }),
  };
  return {
    async post(url, { headers, body, signal }) {
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        throw new DeliveryError('invalid URL', { permanent: true });
      }
      const protocol = target.protocol as keyof typeof agents;
      const agent = agents[protocol];
      if (!agent) {
        throw new DeliveryError(`unsupported URL scheme ${target.protocol}`, { permanent: true });
      }
      // The checked addresses, and only they, are where the socket connects; the Host header
      // and TLS server name stay the URL's host.
      const lookup = destinations
        ? pinnedLookup(await vetDestination(target.hostname, destinations))
        : undefined;
      return new Promise((resolve, reject) => {
        const send = protocol === 'https:' ? https.request : http.request;
        const request = send(
          target,
          {
            method: 'POST',
            agent,
            signal,
            ...(lookup ? { lookup } : {}),
            headers: { ...headers, 'Content-Length': String(body.length) },
          },
          (response) => {
            const chunks: Buffer[] = [];
            let size = 0;
            response.on('data', (chunk: Buffer) => {
              if (size >= MAX_ANSWER_BYTES) return;
              chunks.push(chunk);
              size += chunk.length;
            });
            response.on('end', () =>
              resolve({
                status: response.statusCode ?? 0,
                text: Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8'),
              }),
            );
            response.on('error', reject);
          },
        );
        request.on('error', reject);
        request.end(body);
      });
    },
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

/** An answer's body as one short line, for an error message. */
export function excerpt(text: string, limit = 200): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > limit ? `${line.slice(0, limit)}…` : line;
}
