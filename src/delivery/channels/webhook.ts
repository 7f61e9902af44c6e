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
 *
 * A new subscription's URL is first sent its verification request the same way, as JSON
 * `{type: "subscription_verification", id, account, subscriptionId, challenge, requestedAt}`
 * (`X-Batchbook-Notice-Id` is the request's id). The receiver shows that it wants the account's
 * notices by answering 2xx with the challenge: the body alone, or JSON `{"challenge": …}`. A
 * 2xx without it fails for good (a URL that does not know the protocol never will); another
 * status is retried.
 */
import { createHmac } from 'node:crypto';
import { DeliveryError, type Channel, type Notice, type VerificationRequest } from '../channel.js';
import { excerpt, type HttpAnswer, type HttpClient } from '../http.js';

export const NOTICE_ID_HEADER = 'X-Batchbook-Notice-Id';
export const SIGNATURE_HEADER = 'X-Batchbook-Signature';

/** The signature header's value for `body` under `secret`. */
export function webhookSignature(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function webhookBody(notice: Notice): string {
  return JSON.stringify(notice);
}

/** The verification request as its webhook receives it. */
export function verificationBody(request: VerificationRequest): string {
  return JSON.stringify({
    type: 'subscription_verification',
    id: request.id,
    account: request.account,
    subscriptionId: request.subscriptionId,
    challenge: request.method === 'webhookChallenge' ? request.challenge : null,
    requestedAt: request.requestedAt,
  });
}

/** The challenge a receiver answered with: the body alone, or JSON `{challenge}`. */
function answeredChallenge(text: string): string {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && 'challenge' in parsed) {
      return String(parsed.challenge);
    }
  } catch {
    // Not JSON: the body itself.
  }
  return text.trim();
}

export function createWebhookChannel(client: HttpClient): Channel<'webhook'> {
  /** POSTs `json` signed with the subscription's secret; throws unless the answer is 2xx. */
  const post = async (
    url: string,
    secret: string,
    id: string,
    json: string,
    signal: AbortSignal,
  ): Promise<HttpAnswer> => {
    const body = Buffer.from(json, 'utf8');
    const answer = await client.post(url, {
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': 'batchbook-delivery',
        [NOTICE_ID_HEADER]: id,
        [SIGNATURE_HEADER]: webhookSignature(secret, body),
      },
      body,
      signal,
    });
    if (answer.status < 200 || answer.status > 299) {
      const text = excerpt(answer.text);
      throw new DeliveryError(`webhook answered ${answer.status}${text && `: ${text}`}`);
    }
    return answer;
  };
  return {
    async deliver(notice, channel, signal) {
      await post(channel.url, channel.secret, notice.id, webhookBody(notice), signal);
    },
    async verify(request, channel, signal) {
      if (request.method !== 'webhookChallenge') {
        throw new DeliveryError(`a webhook is not verified by ${request.method}`, {
          permanent: true,
        });
      }
      const body = verificationBody(request);
      const answer = await post(channel.url, channel.secret, request.id, body, signal);
      if (answeredChallenge(answer.text) !== request.challenge) {
        throw new DeliveryError(
          `webhook answered ${answer.status} without the challenge: it does not take the notices`,
          { permanent: true },
        );
      }
    },
  };
}
