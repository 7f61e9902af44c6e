/**
 * What every order event is made of: hex values, the signed order's fields, its hooks and its
 * quote. The shapes are the schemas' (schemas/events/definitions.schema.json), generated.
 */
import type { OrderData, OrderPlacedV1 } from '../../../schemas/event-payloads.generated.js';

export type {
  Address,
  Hex,
  Interaction,
  OrderClass,
  OrderData,
  OrderKind,
  OrderUid,
  SigningScheme,
} from '../../../schemas/event-payloads.generated.js';

export type SellTokenBalance = OrderData['sellTokenBalance'];
export type BuyTokenBalance = OrderData['buyTokenBalance'];

/** The quote an order was linked to, as shown in the order's `quote` field. */
export type LinkedQuote = NonNullable<OrderPlacedV1['quote']>;
