/** The outbox's row, declared once for the notices projector that writes it and the worker that reads it. */
import type { DeliveryChannel } from '../domain/events.js';
import type { Notice } from '../domain/notices.js';
import type { VerificationRequest } from './destination-verification.js';

/**
 * A delivery owed, as the outbox stores it: a notice, or a new subscription's verification
 * request (exactly one of the two), for one subscription's channel.
 */
export interface OutboxRow {
  notice_id: string;
  subscription_id: string;
  account: string;
  channel: DeliveryChannel;
  notice: Notice | null;
  verification: VerificationRequest | null;
}
