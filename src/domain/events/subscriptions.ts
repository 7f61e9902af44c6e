/**
 * Accounts' delivery subscriptions, and the deployment identity they are signed for, as their
 * schemas (schemas/events/) declare them.
 */
import type {
  SubscriptionAddedV2,
  SubscriptionVerifiedV1,
} from '../../../schemas/event-payloads.generated.js';

export type {
  DeploymentIdentifiedV1,
  SubscriptionAddedV2,
  SubscriptionRemovedV2,
  SubscriptionVerifiedV1,
} from '../../../schemas/event-payloads.generated.js';

/** Where an account's notices are delivered. */
export type DeliveryChannel = SubscriptionAddedV2['channel'];

export type SubscriptionAuthority = SubscriptionAddedV2['authorisedBy'];

/**
 * How a subscription's destination shows that its owner wants the account's notices; nothing
 * is delivered to it before (README, Notifications).
 */
export type DestinationVerification = SubscriptionAddedV2['verification'];

/** The methods a SubscriptionVerified records. */
export type VerificationMethod = SubscriptionVerifiedV1['method'];
