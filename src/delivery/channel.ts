/**
 * What every delivery channel implements, and the error that tells the worker how a failed
 * attempt should be retried.
 */
import type { VerificationRequest } from '../subscriptions/destination-verification.js';
import type { DeliveryChannel } from '../domain/events.js';
import type { Notice } from '../domain/notices.js';

/** A notice as the outbox carries it: what GET /accounts/{account}/notifications shows. */
export type { Notice, VerificationRequest };

/** What one outbox row sends: a notice, or a new subscription's verification request. */
export type OutboxMessage =
  { kind: 'notice'; notice: Notice } | { kind: 'verification'; request: VerificationRequest };

export type ChannelKind = DeliveryChannel['kind'];
export type ChannelOf<K extends ChannelKind> = Extract<DeliveryChannel, { kind: K }>;

export interface Channel<K extends ChannelKind = ChannelKind> {
  /**
   * Delivers one notice to one subscription's channel; resolves once the receiver accepted it,
   * rejects otherwise (a `DeliveryError` says whether and when to retry). `signal` aborts at
   * the attempt's deadline or when the worker stops.
   */
  deliver(notice: Notice, channel: ChannelOf<K>, signal: AbortSignal): Promise<void>;
  /**
   * Sends a verification request: resolves once the destination took it (an e-mail's code) or
   * answered it as asked (a webhook's challenge). Absent where destinations show they want the
   * notices otherwise (Telegram: a code sent to the bot; web push: none needed).
   */
  verify?(request: VerificationRequest, channel: ChannelOf<K>, signal: AbortSignal): Promise<void>;
  /** Releases connections (e.g. the SMTP pool). */
  close?(): Promise<void>;
}

export interface DeliveryErrorOptions {
  /** No retry can succeed (e.g. a push subscription that is gone): fail the row at once. */
  permanent?: boolean;
  /** The receiver asked not to be tried again before this long (e.g. Telegram's 429). */
  retryAfterMs?: number;
  cause?: unknown;
}

export class DeliveryError extends Error {
  readonly permanent: boolean;
  readonly retryAfterMs: number | null;

  constructor(message: string, options: DeliveryErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'DeliveryError';
    this.permanent = options.permanent ?? false;
    this.retryAfterMs = options.retryAfterMs ?? null;
  }
}

/**
 * A one-line description of why an attempt failed, for `last_error` and the logs: the message,
 * and the cause's when the message alone is vague (e.g. the SMTP connection's). Channels keep
 * request URLs out of their errors (a Telegram URL carries the bot token).
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (error instanceof DeliveryError || !(cause instanceof Error)) return error.message;
  const code = (cause as NodeJS.ErrnoException).code;
  return `${error.message}: ${code && !cause.message.includes(code) ? `${code} ` : ''}${cause.message}`;
}

/** The order a notice is about, if it names one (the text channels add it as a line). */
export function orderIdOf(notice: Notice): string | null {
  // Rows are JSON written by the projector: check rather than trust the type.
  const orderId: unknown = notice.metadata?.orderId;
  return typeof orderId === 'string' ? orderId : null;
}
