/**
 * Destination verification (src/subscriptions/destination-verification.ts): codes as people type them,
 * what each method accepts as proof and when, and what the account is shown of it.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import {
  CODE_BYTES,
  CODE_VALIDITY_SECONDS,
  codesIn,
  decideVerification,
  formatVerificationCode,
  newVerification,
  parseVerificationCode,
  verificationCode,
  verificationRequest,
  verificationView,
  type VerificationProof,
} from '../../../src/subscriptions/destination-verification.js';
import type { DeliveryChannel, DestinationVerification, Hex } from '../../../src/domain/events.js';
import type { ActiveSubscription } from '../../../src/subscriptions/account.js';

const ADDED = '2025-01-01T00:00:00.000Z';
const ADDED_SECONDS = Date.parse(ADDED) / 1000;
const CODE = verificationCode(new Uint8Array(CODE_BYTES).fill(7));
const CHALLENGE = 'ab'.repeat(32);

function subscription(
  channel: DeliveryChannel,
  verification: DestinationVerification,
  verifiedAt: string | null = null,
): ActiveSubscription {
  return {
    id: '6f1c2a7e-0d3b-4c55-9a8e-1b2c3d4e5f60',
    account: `0x${'11'.repeat(20)}` as Hex,
    channel,
    addedAt: ADDED,
    authorisedBy: 'apiKey',
    signedDigest: null,
    verification,
    verifiedAt,
  };
}

const mail = subscription(
  { kind: 'email', address: 'alice@example.com' },
  { method: 'emailCode', code: CODE },
);
const hook = subscription(
  { kind: 'webhook', url: 'https://hooks.example.com/x', secret: 's' },
  { method: 'webhookChallenge', challenge: CHALLENGE },
);
const chat = subscription(
  { kind: 'telegram', chatId: '4242' },
  { method: 'telegramCode', code: CODE },
);
const channelChat = subscription(
  { kind: 'telegram', chatId: '@Batchbook_News' },
  { method: 'telegramCode', code: CODE },
);
const legacy = subscription({ kind: 'email', address: 'bob@example.com' }, { method: 'legacy' });

describe('destination verification', () => {
  it('makes codes of 16 base32 characters that read back in any way a person types them', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: CODE_BYTES, maxLength: CODE_BYTES }), (bytes) => {
        const code = verificationCode(bytes);
        expect(code).to.match(/^[0-9A-HJKMNP-TV-Z]{16}$/);
        const shown = formatVerificationCode(code);
        expect(shown).to.match(/^(\w{4}-){3}\w{4}$/);
        for (const typed of [code, shown, shown.toLowerCase(), ` ${shown.replace(/-/g, ' ')} `]) {
          expect(parseVerificationCode(typed)).to.equal(code);
        }
      }),
    );
    // Distinct bytes, distinct codes: 80 bits, all of them kept.
    expect(verificationCode(new Uint8Array(CODE_BYTES))).to.equal('0'.repeat(16));
    expect(verificationCode(new Uint8Array(CODE_BYTES).fill(255))).to.equal('Z'.repeat(16));
    // Letters that are easily misread are read as the digits they look like.
    expect(parseVerificationCode('O0OO-IIII-LLLL-0000')).to.equal('0000111111110000');
    for (const bad of ['', 'ABC', 'U'.repeat(16), 'A'.repeat(17), 'ABCD_EFGH_JKMN_PQRS']) {
      expect(parseVerificationCode(bad), bad).to.equal(null);
    }
  });

  it('starts each kind of channel with its own verification', () => {
    const random = (n: number) => new Uint8Array(n).fill(1);
    expect(newVerification('email', random)).to.deep.equal({
      method: 'emailCode',
      code: verificationCode(random(CODE_BYTES)),
    });
    expect(newVerification('webhook', random)).to.deep.equal({
      method: 'webhookChallenge',
      challenge: '01'.repeat(32),
    });
    expect(newVerification('telegram', random).method).to.equal('telegramCode');
    expect(newVerification('webpush', random)).to.deep.equal({ method: 'pushSubscription' });
  });

  it('verifies by the right code or challenge only, of the right method', () => {
    const now = ADDED_SECONDS + 60;
    const cases: [ActiveSubscription, VerificationProof, string][] = [
      [mail, { method: 'emailCode', code: CODE }, 'verify'],
      [mail, { method: 'emailCode', code: CODE.replace(/.$/, 'Z') }, 'refused'],
      [mail, { method: 'telegramCode', code: CODE, chat: { id: 4242 } }, 'refused'],
      [hook, { method: 'webhookChallenge', challenge: CHALLENGE }, 'verify'],
      [hook, { method: 'webhookChallenge', challenge: 'cd'.repeat(32) }, 'refused'],
      [chat, { method: 'telegramCode', code: CODE, chat: { id: 4242 } }, 'verify'],
      // The code came from another chat than the one subscribed.
      [chat, { method: 'telegramCode', code: CODE, chat: { id: 4243 } }, 'refused'],
      [
        channelChat,
        { method: 'telegramCode', code: CODE, chat: { id: -100, username: 'batchbook_news' } },
        'verify',
      ],
      [channelChat, { method: 'telegramCode', code: CODE, chat: { id: -100 } }, 'refused'],
      [legacy, { method: 'emailCode', code: CODE }, 'refused'],
    ];
    for (const [s, proof, kind] of cases) {
      expect(decideVerification(s, proof, now).kind, JSON.stringify(proof)).to.equal(kind);
    }
  });

  it('takes codes for a day; a verified destination is answered as it is, to the right code', () => {
    const proof = { method: 'emailCode', code: CODE } as const;
    expect(decideVerification(mail, proof, ADDED_SECONDS + CODE_VALIDITY_SECONDS).kind).to.equal(
      'verify',
    );
    expect(decideVerification(mail, proof, ADDED_SECONDS + CODE_VALIDITY_SECONDS + 1)).to.include({
      kind: 'refused',
      errorType: 'VerificationExpired',
    });
    const verified = { ...mail, verifiedAt: ADDED };
    expect(decideVerification(verified, proof, ADDED_SECONDS + 10 ** 6).kind).to.equal('verified');
    expect(
      decideVerification(verified, { method: 'emailCode', code: '0'.repeat(16) }, ADDED_SECONDS)
        .kind,
    ).to.equal('refused');
  });

  it('finds the codes in a Telegram message', () => {
    const shown = formatVerificationCode(CODE);
    expect(codesIn(`/start ${CODE}`)).to.deep.equal([CODE]);
    expect(codesIn(`my code: ${shown.toLowerCase()} thanks`)).to.deep.equal([CODE]);
    expect(codesIn('/start')).to.deep.equal([]);
  });

  it('shows the account a Telegram code while pending, never an e-mail code or a challenge', () => {
    expect(verificationView(chat.verification, null)).to.deep.equal({
      status: 'pending',
      method: 'telegramCode',
      code: CODE,
    });
    expect(verificationView(chat.verification, ADDED)).to.deep.equal({
      status: 'verified',
      method: 'telegramCode',
    });
    expect(verificationView(mail.verification, null)).to.deep.equal({
      status: 'pending',
      method: 'emailCode',
    });
    expect(verificationView(hook.verification, null)).to.deep.equal({
      status: 'pending',
      method: 'webhookChallenge',
    });
  });

  it('sends a request to e-mail and webhook destinations only, under an id of its own', () => {
    const request = verificationRequest(mail);
    expect(request).to.deep.include({
      account: mail.account,
      subscriptionId: mail.id,
      requestedAt: ADDED,
      method: 'emailCode',
      code: CODE,
    });
    expect(request!.id).to.equal(verificationRequest(mail)!.id);
    expect(request!.id).not.to.equal(verificationRequest({ ...mail, id: 'other' })!.id);
    expect(verificationRequest(hook)).to.deep.include({ challenge: CHALLENGE });
    expect(verificationRequest(chat)).to.equal(null);
    expect(verificationRequest(legacy)).to.equal(null);
  });
});
