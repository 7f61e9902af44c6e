/**
 * E-mail channel: one message per notice over SMTP (nodemailer, pooled connections).
 *
 * Subject: the notice type in words ("Order filled"); text: the message, then the order it is
 * about. `Message-ID: <notice-id@batchbook>` is the same on every retry, so a mail system (or a
 * reader) can drop the copies at-least-once delivery may send; `X-Batchbook-Notice-Id` names the
 * notice as the webhook header does.
 *
 * The relay's credentials (the user and password of `smtp://user:pass@host`) cross only an
 * encrypted connection: `smtps://` is TLS from the start, and `smtp://` with credentials must
 * upgrade with STARTTLS before AUTH (a relay that does not offer it gets no credentials), unless
 * the operator allows plaintext authentication. Without credentials STARTTLS is used when the
 * relay offers it, as nodemailer does by default.
 *
 * A relay's permanent refusal of the recipient or the message (a 5xx answer to MAIL FROM,
 * RCPT TO or DATA, RFC 5321 §4.2.1) fails the row at once: sending again gets the same answer.
 * Other failures (4xx, the connection, authentication) are retried.
 */
import nodemailer from 'nodemailer';
import { formatVerificationCode } from '../../subscriptions/destination-verification.js';
import {
  DeliveryError,
  orderIdOf,
  type Channel,
  type Notice,
  type VerificationRequest,
} from '../channel.js';
import { NOTICE_ID_HEADER } from './webhook.js';

export interface EmailChannelOptions {
  smtpUrl: string;
  from: string;
  /** The relay's credentials may cross an unencrypted connection (SMTP_ALLOW_PLAINTEXT_AUTH). */
  allowPlaintextAuth: boolean;
  /** Bounds connecting, the greeting and every socket wait. */
  timeoutMs: number;
  /** SMTP connections kept open at most. Default 5. */
  maxConnections?: number;
}

/** "order_partially_filled" → "Order partially filled". */
export function emailSubject(notice: Notice): string {
  const words = notice.type.replace(/[_-]+/g, ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : 'Notice';
}

export function emailText(notice: Notice): string {
  const orderId = orderIdOf(notice);
  return orderId ? `${notice.message}\n\nOrder: ${orderId}\n` : `${notice.message}\n`;
}

/** The verification e-mail's text: who asked, the code, and that ignoring it is enough. */
export function verificationText(request: VerificationRequest): string {
  const code = request.method === 'emailCode' ? formatVerificationCode(request.code) : '';
  return (
    `Account ${request.account} asked batchbook to send the notices of its orders to this ` +
    'address.\n\nIf that was you, give this code where you asked for them:\n\n' +
    `    ${code}\n\n` +
    `(or POST {"code": "${code}"} to /accounts/${request.account}/subscriptions/` +
    `${request.subscriptionId}/verification). The code is good for a day.\n\n` +
    'If it was not you, ignore this e-mail: nothing more is sent to this address.\n'
  );
}

/** `<id@batchbook>`, with the id's characters that a Message-ID may not hold percent-encoded. */
export function emailMessageId(notice: Pick<Notice, 'id'>): string {
  const local = encodeURIComponent(notice.id).replace(
    /[()]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `<${local}@batchbook>`;
}

/**
 * The relay's connection options from `smtp[s]://[user:pass@]host[:port]`. Built here rather
 * than handed to nodemailer as `url`, with which it ignores every other option (the pool, the
 * timeouts, requireTLS) and takes more from the URL's query than the README offers.
 */
function relayOptions(options: EmailChannelOptions) {
  const url = new URL(options.smtpUrl);
  const secure = url.protocol === 'smtps:';
  const user = decodeURIComponent(url.username);
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    ...(url.port ? { port: Number(url.port) } : {}),
    secure,
    ...(user ? { auth: { user, pass: decodeURIComponent(url.password) } } : {}),
    // Credentials over `smtp://` wait for STARTTLS; a relay that does not offer it gets none.
    requireTLS: !secure && user !== '' && !options.allowPlaintextAuth,
  };
}

/** The relay refused the envelope or the message for good (a 5xx answer, not the connection). */
function permanentRefusal(error: unknown): boolean {
  const { code, responseCode } = error as { code?: unknown; responseCode?: unknown };
  return (
    (code === 'EENVELOPE' || code === 'EMESSAGE') &&
    typeof responseCode === 'number' &&
    responseCode >= 500 &&
    responseCode <= 599
  );
}

export function createEmailChannel(options: EmailChannelOptions): Channel<'email'> {
  const transport = nodemailer.createTransport({
    ...relayOptions(options),
    pool: true,
    maxConnections: options.maxConnections ?? 5,
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
  });
  /** Sends one message; nodemailer takes no abort signal: the worker abandons it at its deadline. */
  const send = async (to: string, id: string, subject: string, text: string) => {
    try {
      await transport.sendMail({
        from: options.from,
        to,
        subject,
        text,
        messageId: emailMessageId({ id }),
        headers: { [NOTICE_ID_HEADER]: id },
      });
    } catch (error) {
      if (!permanentRefusal(error)) throw error;
      throw new DeliveryError((error as Error).message, { permanent: true, cause: error });
    }
  };
  return {
    async deliver(notice, channel) {
      await send(channel.address, notice.id, emailSubject(notice), emailText(notice));
    },
    async verify(request, channel) {
      if (request.method !== 'emailCode') {
        throw new DeliveryError(`an e-mail address is not verified by ${request.method}`, {
          permanent: true,
        });
      }
      await send(
        channel.address,
        request.id,
        'Confirm batchbook notices at this address',
        verificationText(request),
      );
    },
    async close() {
      transport.close();
    },
  };
}
