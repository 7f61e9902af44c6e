/**
 * How a subscription's destination shows that its owner wants the account's notices: until it
 * has, nothing but the verification itself is sent to it (README, Notifications). An account
 * can name any address, URL or chat, so its own signature proves nothing about the destination.
 *
 * - e-mail: a code is mailed to the address; whoever reads it gives it back
 *   (`POST /accounts/{account}/subscriptions/{id}/verification`) within a day.
 * - webhook: a challenge is POSTed to the URL, which must answer 2xx with the challenge; the
 *   delivery worker sends it with retries, as it sends notices.
 * - Telegram: the account is given a code, to be sent from that chat to the bot within a day.
 * - web push: nothing more (`verifiedOnAdding`).
 *
 * Pure: the random bytes of codes, the clock and the account's subscriptions are parameters.
 */
import { deterministicEventId } from '../domain/event-ids.js';
import type { Address, DestinationVerification, SubscriptionAddedV2 } from '../domain/events.js';
import { bytesToHex } from '../bytes/hex.js';
import { sameSecret } from '../bytes/same-secret.js';
import type { ActiveSubscription } from './account.js';
import type { ChannelKind } from './typed-data.js';

/** How long an e-mail or Telegram code is good for, from the subscription's `addedAt`. */
export const CODE_VALIDITY_SECONDS = 86_400;

/** Crockford's base32: no I, L, O or U, so a code read aloud or retyped survives. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** 80 bits: no one guesses a code within its day, however fast they ask. */
export const CODE_BYTES = 10;
const CODE_LENGTH = 16;
const CODE = /^[0-9A-HJKMNP-TV-Z]{16}$/;
export const CHALLENGE_BYTES = 32;

/** `CODE_BYTES` random bytes as a code of 16 base32 characters. */
export function verificationCode(bytes: Uint8Array): string {
  if (bytes.length !== CODE_BYTES) throw new RangeError(`a code takes ${CODE_BYTES} bytes`);
  let bits = 0n;
  for (const byte of bytes) bits = (bits << 8n) | BigInt(byte);
  let code = '';
  for (let i = CODE_LENGTH - 1; i >= 0; i--)
    code += ALPHABET[Number((bits >> BigInt(5 * i)) & 31n)];
  return code;
}

/** A code as a person may type it (any case, dashes or spaces, O for 0, I or L for 1), or null. */
export function parseVerificationCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
  return CODE.test(code) ? code : null;
}

/** `ABCD-EFGH-JKMN-PQRS`: a code as a message shows it. */
export const formatVerificationCode = (code: string): string => code.match(/.{4}/g)!.join('-');

/** The verification a new subscription of `kind` starts with; `random(n)` gives n random bytes. */
export function newVerification(
  kind: ChannelKind,
  random: (bytes: number) => Uint8Array,
): DestinationVerification {
  switch (kind) {
    case 'email':
      return { method: 'emailCode', code: verificationCode(random(CODE_BYTES)) };
    case 'webhook':
      return {
        method: 'webhookChallenge',
        challenge: bytesToHex(random(CHALLENGE_BYTES)).slice(2),
      };
    case 'telegram':
      return { method: 'telegramCode', code: verificationCode(random(CODE_BYTES)) };
    case 'webpush':
      return { method: 'pushSubscription' };
  }
}

/** A Telegram chat as the Bot API's updates name it. */
export interface TelegramChat {
  id: number;
  username?: string;
}

/** What a destination gave back. */
export type VerificationProof =
  | { method: 'emailCode'; code: string }
  | { method: 'webhookChallenge'; challenge: string }
  /** A code sent to the bot, from `chat`. */
  | { method: 'telegramCode'; code: string; chat: TelegramChat };

export type VerificationDecision =
  | { kind: 'verify' }
  /** Verified already: nothing to write. */
  | { kind: 'verified' }
  | {
      kind: 'refused';
      errorType: 'InvalidVerificationCode' | 'VerificationExpired';
      description: string;
    };

const refused = (
  errorType: 'InvalidVerificationCode' | 'VerificationExpired',
  description: string,
): VerificationDecision => ({ kind: 'refused', errorType, description });

/** The chat a subscription names: its numeric id, or the `@username` of a public chat. */
export function sameTelegramChat(chatId: string, chat: TelegramChat): boolean {
  if (chatId.startsWith('@')) {
    return (
      chat.username !== undefined && chatId.slice(1).toLowerCase() === chat.username.toLowerCase()
    );
  }
  return chatId === String(chat.id);
}

/** What the destination must give back, by the method of its verification; null: nothing. */
function expectedProof(verification: DestinationVerification): string | null {
  switch (verification.method) {
    case 'emailCode':
    case 'telegramCode':
      return verification.code;
    case 'webhookChallenge':
      return verification.challenge;
    case 'pushSubscription':
    case 'legacy':
      return null;
  }
}

/** Whether `proof` verifies `subscription` at `nowSeconds`. */
export function decideVerification(
  subscription: ActiveSubscription,
  proof: VerificationProof,
  nowSeconds: number,
): VerificationDecision {
  const expected =
    subscription.verification.method === proof.method
      ? expectedProof(subscription.verification)
      : null;
  const presented = proof.method === 'webhookChallenge' ? proof.challenge : proof.code;
  if (expected === null || !sameSecret(expected, presented)) {
    return refused('InvalidVerificationCode', 'this is not the code of this subscription');
  }
  if (proof.method === 'telegramCode') {
    const { channel } = subscription;
    if (channel.kind !== 'telegram' || !sameTelegramChat(channel.chatId, proof.chat)) {
      return refused('InvalidVerificationCode', 'the code came from another chat');
    }
  }
  if (subscription.verifiedAt !== null) return { kind: 'verified' };
  const addedAt = Math.floor(Date.parse(subscription.addedAt) / 1000);
  if (proof.method !== 'webhookChallenge' && nowSeconds > addedAt + CODE_VALIDITY_SECONDS) {
    return refused(
      'VerificationExpired',
      'the code was good for a day: remove the subscription and add it again for a new one',
    );
  }
  return { kind: 'verify' };
}

/** The codes a Telegram message may carry (`/start CODE`, or the code alone). */
export function codesIn(text: string): string[] {
  return (text.match(/[0-9A-Za-z-]{16,19}/g) ?? []).flatMap((word) => {
    const code = parseVerificationCode(word);
    return code ? [code] : [];
  });
}

/** A subscription's verification as the account sees it. */
export interface VerificationView {
  status: 'pending' | 'verified';
  method: DestinationVerification['method'];
  /** The code to send from the chat to the bot, while a Telegram subscription is pending. */
  code?: string;
}

/** Never an e-mail code or a webhook challenge: those must come back from the destination. */
export function verificationView(
  verification: DestinationVerification,
  verifiedAt: string | null,
): VerificationView {
  const status = verifiedAt === null ? 'pending' : 'verified';
  const view: VerificationView = { status, method: verification.method };
  if (status === 'pending' && verification.method === 'telegramCode') {
    view.code = verification.code;
  }
  return view;
}

/**
 * What the delivery worker sends a destination that must show it wants the notices: the e-mail
 * with its code, the webhook's challenge. `id` is the same on every replay.
 */
export type VerificationRequest = {
  id: string;
  account: Address;
  subscriptionId: string;
  requestedAt: string;
} & ({ method: 'emailCode'; code: string } | { method: 'webhookChallenge'; challenge: string });

/** A webhook's challenge. */
export type ChallengeRequest = Extract<VerificationRequest, { method: 'webhookChallenge' }>;

/** The request a new subscription's destination is sent; null when it is sent none. */
export function verificationRequest(added: SubscriptionAddedV2): VerificationRequest | null {
  const { verification } = added;
  if (verification.method !== 'emailCode' && verification.method !== 'webhookChallenge') {
    return null;
  }
  return {
    id: deterministicEventId('verification', added.id),
    account: added.account,
    subscriptionId: added.id,
    requestedAt: added.addedAt,
    ...verification,
  };
}
