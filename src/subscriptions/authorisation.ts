/**
 * Who may manage an account's subscriptions: the server's API key (header `X-API-Key`, compared
 * in constant time; with no key configured the header authorises nothing) or an EIP-712
 * signature by the account itself over the request (src/subscriptions/typed-data.ts). Only
 * ECDSA signatures (65 bytes r‖s‖v, v 27/28 or 0/1) recover; smart-contract (EIP-1271) accounts
 * cannot sign here and manage their subscriptions through the API key.
 *
 * A signature carries `issuedAt` (unix seconds), which must be within ±5 minutes of the server's
 * clock, and a signed request that writes (Subscribe, Unsubscribe) works once: the events it
 * appends record its digest, and a digest already in the account's stream is refused
 * (src/subscriptions/account.ts). A signed listing writes nothing and may be repeated within its
 * window. Pure: the clock and the configured API key are parameters.
 */
import { bytesToHex } from '../bytes/hex.js';
import { sameSecret } from '../bytes/same-secret.js';
import type { Hex, SubscriptionAuthority } from '../domain/events.js';
import { recoverOrderSigner } from '../domain/signatures.js';
import { subscriptionActionDigest, type SubscriptionAction } from './typed-data.js';

/** A signed request is accepted this many seconds either side of the server's clock. */
export const ISSUED_AT_WINDOW_SECONDS = 300;

export interface SubscriptionCredentials {
  /** The `X-API-Key` header, when sent. */
  apiKey: string | null;
  signature: Hex | null;
  issuedAt: number | null;
}

export type AuthorisationDecision =
  | {
      ok: true;
      by: SubscriptionAuthority;
      /** The digest the account signed; null with the API key. */
      digest: Hex | null;
    }
  | { ok: false; description: string };

/**
 * An API key, when one is presented, decides alone: a wrong one (or any, when the server has
 * none) is refused even beside a valid signature. Otherwise the signature must recover to the
 * account, over this very action in this deployment's domain, issued within the window around
 * `nowSeconds`. Whether a writing request's digest was used already is the caller's to check
 * (`signatureUsed`), against the account's stream.
 */
export function authoriseSubscriptionAction(input: {
  action: SubscriptionAction;
  credentials: SubscriptionCredentials;
  /** The server's key; null: none configured. */
  configuredApiKey: string | null;
  /** `subscriptionsDomainSeparator` of this deployment. */
  domainSeparator: Uint8Array;
  nowSeconds: number;
}): AuthorisationDecision {
  const { action, credentials, configuredApiKey, nowSeconds } = input;
  if (credentials.apiKey !== null) {
    if (configuredApiKey === null) {
      return refuse('X-API-Key is not accepted: this server has no API key configured');
    }
    if (!sameSecret(configuredApiKey, credentials.apiKey)) {
      return refuse('X-API-Key is not the server’s API key');
    }
    return { ok: true, by: 'apiKey', digest: null };
  }
  const { signature, issuedAt } = credentials;
  if (signature === null) {
    return refuse('sign the request with the account’s key (EIP-712) or send X-API-Key');
  }
  if (issuedAt === null) return refuse('a signed request needs its issuedAt');
  if (Math.abs(nowSeconds - issuedAt) > ISSUED_AT_WINDOW_SECONDS) {
    return refuse(
      `issuedAt ${issuedAt} is more than ${ISSUED_AT_WINDOW_SECONDS} seconds from the server’s ` +
        `time ${nowSeconds}`,
    );
  }
  const digest = subscriptionActionDigest(input.domainSeparator, action, issuedAt);
  const signer = recoverOrderSigner('eip712', digest, signature);
  if (signer === null) return refuse('the signature does not recover to any address');
  if (signer !== action.account.toLowerCase()) {
    return refuse(`the signature is by ${signer}, not by the account ${action.account}`);
  }
  return { ok: true, by: 'signature', digest: bytesToHex(digest) };
}

const refuse = (description: string): AuthorisationDecision => ({ ok: false, description });
