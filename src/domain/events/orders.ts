/**
 * The API's facts about orders: placements, signed cancellations, quotes and app data, as their
 * schemas (schemas/events/) declare them.
 */
import type {
  OrderCancelledV1,
  QuoteCreatedV1,
} from '../../../schemas/event-payloads.generated.js';

export type {
  AppDataRegisteredV1,
  OrderCancelledV1,
  OrderPlacedV1,
  QuoteCreatedV1,
} from '../../../schemas/event-payloads.generated.js';

export type CancellationSource = OrderCancelledV1['source'];

/** The order a quote prices, as the API's `OrderQuote` shows it (amounts after the fee). */
export type QuotedOrder = QuoteCreatedV1['quote'];
