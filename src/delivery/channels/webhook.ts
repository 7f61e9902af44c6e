/**
 * Webhook channel: POSTs the notice as JSON to the subscription's URL.
 *
 * The body is the notice itself, exactly as GET /accounts/{account}/notifications lists it
 * (`{id, account, type, message, timestamp, metadata}`), so one parser serves both. Headers:
 *   Content-Type: application/json
 *   X-Batchbook-Notice-Id: <notice id>   (stable across retries: de-duplicate by it)
 *   X-Batchbook-Signature: sha256=<hex HMAC-SHA256 of the exact body bytes, keyed with the
 *                                   subscription's secret>
 * Any 2xx answer is a delivery; anything else (redirects included: they are not followed) fails
 * the attempt with the status, and it is retried with backoff.
 */
import { createHmac } from 'node:crypto';
import { DeliveryError, type Channel, type Notice } from '../channel.js';
import { excerpt, type HttpClient } from '../http.js';

export const NOTICE_ID_HEADER = 'X-Batchbook-Notice-Id';
export const SIGNATURE_HEADER = 'X-Batchbook-Signature';

/** The signature header's value for `body` under `secret`. */
export function webhookSignature(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function webhookBody(notice: Notice): string {
  return JSON.stringify(notice);
}

export function createWebhookChannel(client: HttpClient): Channel<'webhook'> {
  return {
    async deliver(notice, channel, signal) {
      const body = Buffer.from(webhookBody(notice), 'utf8');
      const answer = await client.post(channel.url, {
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'batchbook-delivery',
          [NOTICE_ID_HEADER]: notice.id,
          [SIGNATURE_HEADER]: webhookSignature(channel.secret, body),
        },
        body,
        signal,
      });
      if (answer.status < 200 || answer.status > 299) {
        const text = excerpt(answer.text);
        throw new DeliveryError(`webhook answered ${answer.status}${text && `: ${text}`}`);
      }
    },
  };
}
