/**
 * Web push channel: the notice as JSON, encrypted for the browser's push subscription
 * (RFC 8291, aes128gcm) and authorised with the service's VAPID keys (RFC 8292), both by the
 * `web-push` library; TTL one day, no topic (a topic would let a later notice about an order
 * replace an undelivered earlier one).
 *
 * `web-push` builds the request (`generateRequestDetails`) and this channel sends it with the
 * worker's HTTP client: `sendNotification` speaks only https through its own client and takes
 * no abort signal, while this one honours the attempt's deadline and the worker's stop.
 *
 * 404 or 410 from the push service means the subscription is gone (the browser unsubscribed):
 * the row fails at once, without retries. So does 413 (a payload no retry can shrink) and a
 * subscription whose keys cannot be used.
 */
import webpush from 'web-push';
import { DeliveryError, type Channel } from '../channel.js';
import { excerpt, type HttpClient } from '../http.js';

export interface WebPushChannelOptions {
  publicKey: string;
  privateKey: string;
  /** A mailto: or https: URL the push service can reach the sender at. */
  subject: string;
}

/** Seconds the push service keeps a message for a browser that is offline. */
export const WEB_PUSH_TTL = 86_400;

export function createWebPushChannel(
  options: WebPushChannelOptions,
  client: HttpClient,
): Channel<'webpush'> {
  const vapidDetails = {
    subject: options.subject,
    publicKey: options.publicKey,
    privateKey: options.privateKey,
  };
  return {
    async deliver(notice, channel, signal) {
      let request: webpush.RequestDetails;
      try {
        request = webpush.generateRequestDetails(
          { endpoint: channel.endpoint, keys: channel.keys },
          JSON.stringify(notice),
          { vapidDetails, TTL: WEB_PUSH_TTL, contentEncoding: 'aes128gcm' },
        );
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new DeliveryError(`push subscription unusable: ${reason}`, {
          permanent: true,
          cause: error,
        });
      }
      const headers = Object.fromEntries(
        Object.entries(request.headers)
          .filter(([name]) => name.toLowerCase() !== 'content-length')
          .map(([name, value]) => [name, String(value)]),
      );
      const answer = await client.post(request.endpoint, {
        headers,
        body: request.body ?? Buffer.alloc(0),
        signal,
      });
      if (answer.status >= 200 && answer.status <= 299) return;
      const text = excerpt(answer.text);
      const detail = `${answer.status}${text && `: ${text}`}`;
      if (answer.status === 404 || answer.status === 410) {
        throw new DeliveryError(`push subscription gone (push service answered ${detail})`, {
          permanent: true,
        });
      }
      if (answer.status === 413) {
        throw new DeliveryError(`push payload too large (push service answered ${detail})`, {
          permanent: true,
        });
      }
      throw new DeliveryError(`push service answered ${detail}`);
    },
  };
}
