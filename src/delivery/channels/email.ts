/**
 * E-mail channel: one message per notice over SMTP (nodemailer, pooled connections).
 *
 * Subject: the notice type in words ("Order filled"); text: the message, then the order it is
 * about. `Message-ID: <notice-id@batchbook>` is the same on every retry, so a mail system (or a
 * reader) can drop the copies at-least-once delivery may send; `X-Batchbook-Notice-Id` names the
 * notice as the webhook header does.
 */
import nodemailer from 'nodemailer';
import { orderIdOf, type Channel, type Notice } from '../channel.js';
import { NOTICE_ID_HEADER } from './webhook.js';

export interface EmailChannelOptions {
  smtpUrl: string;
  from: string;
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

/** `<id@batchbook>`, with the id's characters that a Message-ID may not hold percent-encoded. */
export function emailMessageId(notice: Notice): string {
  const local = encodeURIComponent(notice.id).replace(
    /[()]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `<${local}@batchbook>`;
}

export function createEmailChannel(options: EmailChannelOptions): Channel<'email'> {
  const transport = nodemailer.createTransport({
    url: options.smtpUrl,
    pool: true,
    maxConnections: options.maxConnections ?? 5,
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
  });
  return {
    async deliver(notice, channel) {
      // nodemailer takes no abort signal: the worker abandons an attempt past its deadline.
      await transport.sendMail({
        from: options.from,
        to: channel.address,
        subject: emailSubject(notice),
        text: emailText(notice),
        messageId: emailMessageId(notice),
        headers: { [NOTICE_ID_HEADER]: notice.id },
      });
    },
    async close() {
      transport.close();
    },
  };
}
