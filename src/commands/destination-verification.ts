/**
 * A subscription's destination gave back what its verification asked for
 * (src/subscriptions/destination-verification.ts): the e-mail code, posted by whoever read it; the
 * webhook's answer to its challenge, seen by the delivery worker; the code sent from the
 * Telegram chat, seen in the bot's updates. The proof is what authorises, not the account: the
 * point is that the destination wants the notices. A subscription verified already is answered
 * with its first verification, and nothing is written.
 */
import {
  decideVerification,
  parseVerificationCode,
  type TelegramChat,
  type VerificationProof,
} from '../subscriptions/destination-verification.js';
import type { Address } from '../domain/events.js';
import { findSubscription } from '../subscriptions/account.js';
import { appendToAccount, loadAccount } from './account-stream.js';
import { decideAgainOnConflict } from './decide-again.js';
import { reject } from './rejection.js';
import { ensureEnabled, type SubscriptionsDeps } from './subscriptions.js';

export interface VerifyResult {
  id: string;
  account: Address;
  verifiedAt: string;
  /** Where the ledger stood once the subscription was verified, for read-your-writes. */
  position: string;
}

/** The pending Telegram subscription a code was given to (the subscriptions read model). */
export type FindTelegramCode = (code: string) => Promise<{ account: Address; id: string } | null>;

export async function verifyDestination(
  deps: SubscriptionsDeps,
  account: Address,
  id: string,
  proof: VerificationProof,
): Promise<VerifyResult> {
  ensureEnabled(deps);
  const now = deps.clock();
  return decideAgainOnConflict(async () => {
    const stream = await loadAccount(deps.ledger, account);
    const found = findSubscription(stream.subscriptions.active, id);
    if (!found.ok) reject(found.errorType, found.description);
    const { subscription } = found;
    const decision = decideVerification(subscription, proof, Math.floor(now.getTime() / 1000));
    if (decision.kind === 'refused') reject(decision.errorType, decision.description);
    if (decision.kind === 'verified') {
      return {
        id: subscription.id,
        account,
        verifiedAt: subscription.verifiedAt!,
        position: stream.last!,
      };
    }
    const verifiedAt = now.toISOString();
    const position = await appendToAccount(deps.ledger, stream, {
      type: 'SubscriptionVerified',
      data: { id: subscription.id, account, method: proof.method, verifiedAt },
    });
    return { id: subscription.id, account, verifiedAt, position };
  });
}

/** POST /accounts/{account}/subscriptions/{id}/verification: the code an e-mail carried. */
export function verifyEmail(
  deps: SubscriptionsDeps,
  account: Address,
  id: string,
  code: string,
): Promise<VerifyResult> {
  const parsed = parseVerificationCode(code);
  if (parsed === null) {
    reject('InvalidVerificationCode', 'a code is 16 letters and digits, as the e-mail shows it');
  }
  return verifyDestination(deps, account, id, { method: 'emailCode', code: parsed });
}

/**
 * A code sent to the bot from `chat`: verifies the pending subscription it was given to if that
 * subscription names this chat. Null when no pending subscription has this code.
 */
export async function verifyTelegramChat(
  deps: SubscriptionsDeps & { findTelegramCode: FindTelegramCode },
  code: string,
  chat: TelegramChat,
): Promise<VerifyResult | null> {
  const pending = await deps.findTelegramCode(code);
  if (pending === null) return null;
  return verifyDestination(deps, pending.account, pending.id, {
    method: 'telegramCode',
    code,
    chat,
  });
}
