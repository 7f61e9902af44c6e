/** Accounts' delivery subscriptions, and the deployment identity they are signed for. */
import type { Address, Hex } from './order-data.js';

/** Where an account's notices are delivered. */
export type DeliveryChannel =
  /** POST of the notice as JSON, signed with HMAC-SHA256 under `secret` (given to the account once). */
  | { kind: 'webhook'; url: string; secret: string }
  | { kind: 'email'; address: string }
  /** A browser's push subscription (the Push API's `PushSubscription.toJSON()`). */
  | { kind: 'webpush'; endpoint: string; keys: { p256dh: string; auth: string } }
  | { kind: 'telegram'; chatId: string };

export type SubscriptionAuthority = 'signature' | 'apiKey';

/**
 * How a subscription's destination shows that its owner wants the account's notices; nothing
 * is delivered to it before (README, Notifications).
 */
export type DestinationVerification =
  /** A code e-mailed to the address, given back by whoever reads it. */
  | { method: 'emailCode'; code: string }
  /** A challenge POSTed to the URL, which must answer with it. */
  | { method: 'webhookChallenge'; challenge: string }
  /** A code given to the account, to be sent from the chat to the bot. */
  | { method: 'telegramCode'; code: string }
  /**
   * Nothing more: the browser made the push subscription for this server's VAPID key and keeps
   * its decryption keys, and push services refuse messages signed with another key.
   */
  | { method: 'pushSubscription' }
  /** Added before destinations had to show anything (version 1): delivered nothing. */
  | { method: 'legacy' };

/** The methods a SubscriptionVerified records. */
export type VerificationMethod = Extract<
  DestinationVerification,
  { code: string } | { challenge: string }
>['method'];

/** An account subscribed a delivery channel to its notices (on every network). */
export interface SubscriptionAddedV2 {
  /** A UUID, the handle to remove it by. */
  id: string;
  account: Address;
  channel: DeliveryChannel;
  addedAt: string;
  authorisedBy: SubscriptionAuthority;
  /** The EIP-712 digest the account signed for this request; null with the API key. */
  signedDigest: Hex | null;
  verification: DestinationVerification;
}

/** The destination of a subscription answered its verification: notices may go to it. */
export interface SubscriptionVerifiedV1 {
  id: string;
  account: Address;
  method: VerificationMethod;
  verifiedAt: string;
}

export interface SubscriptionRemovedV2 {
  id: string;
  account: Address;
  removedAt: string;
  authorisedBy: SubscriptionAuthority;
  /** The EIP-712 digest the account signed for this request; null with the API key. */
  signedDigest: Hex | null;
}

/**
 * This deployment's identity (one ledger, whatever number of instances serve it): the salt of
 * the EIP-712 domain accounts sign subscription requests in, so that a signature made for one
 * deployment means nothing to another.
 */
export interface DeploymentIdentifiedV1 {
  deploymentId: Hex;
  identifiedAt: string;
}
