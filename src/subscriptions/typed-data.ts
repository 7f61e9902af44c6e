/**
 * The typed data an account signs to manage its subscriptions (EIP-712), and the digest of a
 * signed request. The domain is `{ name: 'batchbook notifications', version: '2', salt: <the
 * deployment id> }`. The salt is the deployment's identity (one ledger, however many instances
 * serve it; `DeploymentIdentified`), so a signature made for one deployment means nothing to
 * another. The domain has no `chainId` and no `verifyingContract`: an account's subscriptions
 * cover its notices on every network, so one signature must not be bound to one chain, and no
 * contract verifies it.
 */
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { keccak256 } from '../bytes/keccak.js';
import { typedDataDigest } from '../domain/eip712.js';
import type { Address, DeliveryChannel, Hex } from '../domain/events.js';

const DOMAIN_NAME = 'batchbook notifications';
const DOMAIN_VERSION = '2';

/** The members of each struct, in order, as `eth_signTypedData_v4` takes them. */
export const SUBSCRIPTION_STRUCTS = {
  EIP712Domain: [
    { name: 'name', type: 'string' },
    { name: 'version', type: 'string' },
    { name: 'salt', type: 'bytes32' },
  ],
  /**
   * `channel` is the kind; `target` the webhook URL, e-mail address, push endpoint or chat id,
   * as sent; `p256dh` and `auth` the push subscription's keys (empty for the other kinds).
   */
  Subscribe: [
    { name: 'account', type: 'address' },
    { name: 'channel', type: 'string' },
    { name: 'target', type: 'string' },
    { name: 'p256dh', type: 'string' },
    { name: 'auth', type: 'string' },
    { name: 'issuedAt', type: 'uint256' },
  ],
  ListSubscriptions: [
    { name: 'account', type: 'address' },
    { name: 'issuedAt', type: 'uint256' },
  ],
  Unsubscribe: [
    { name: 'account', type: 'address' },
    { name: 'id', type: 'string' },
    { name: 'issuedAt', type: 'uint256' },
  ],
} as const;

type StructName = keyof typeof SUBSCRIPTION_STRUCTS;

/** `Subscribe(address account,string channel,…)`: the type string EIP-712 hashes. */
const typeString = (name: StructName) =>
  `${name}(${SUBSCRIPTION_STRUCTS[name].map((m) => `${m.type} ${m.name}`).join(',')})`;

/** The domain a deployment's subscription requests are signed in. */
export function subscriptionsDomain(deploymentId: Hex) {
  return { name: DOMAIN_NAME, version: DOMAIN_VERSION, salt: deploymentId };
}

export interface SubscriptionsTypedData {
  domain: ReturnType<typeof subscriptionsDomain>;
  types: typeof SUBSCRIPTION_STRUCTS;
}

/** What a client needs to sign a request for this deployment (`eth_signTypedData_v4`). */
export function subscriptionsTypedData(deploymentId: Hex): SubscriptionsTypedData {
  return { domain: subscriptionsDomain(deploymentId), types: SUBSCRIPTION_STRUCTS };
}

const WORD = 32;
const keccakText = (s: string): Uint8Array => keccak256(utf8ToBytes(s));

const SUBSCRIBE_TYPE_HASH = keccakText(typeString('Subscribe'));
const LIST_TYPE_HASH = keccakText(typeString('ListSubscriptions'));
const UNSUBSCRIBE_TYPE_HASH = keccakText(typeString('Unsubscribe'));

/** The domain separator of a deployment's subscription requests. */
export function subscriptionsDomainSeparator(deploymentId: Hex): Uint8Array {
  const buf = Buffer.alloc(4 * WORD);
  buf.set(keccakText(typeString('EIP712Domain')), 0);
  buf.set(keccakText(DOMAIN_NAME), WORD);
  buf.set(keccakText(DOMAIN_VERSION), 2 * WORD);
  if (
    deploymentId.length !== 66 ||
    buf.write(deploymentId.slice(2), 3 * WORD, WORD, 'hex') !== WORD
  ) {
    throw new TypeError(`not a deployment id: ${deploymentId}`);
  }
  return keccak256(buf);
}

export type ChannelKind = DeliveryChannel['kind'];

/** The channel as the account signs it (the `Subscribe` struct's members but account). */
export interface SignedChannel {
  channel: ChannelKind;
  target: string;
  p256dh: string;
  auth: string;
}

/** What the account signs: which action, on which of its subscriptions. */
export type SubscriptionAction =
  | ({ kind: 'subscribe'; account: Address } & SignedChannel)
  | { kind: 'list'; account: Address }
  /** `id` as sent in the path. */
  | { kind: 'unsubscribe'; account: Address; id: string };

function structBuffer(words: number, typeHash: Uint8Array, account: Address): Buffer {
  const buf = Buffer.alloc(words * WORD);
  buf.set(typeHash, 0);
  if (account.length !== 42 || buf.write(account.slice(2), WORD + 12, 20, 'hex') !== 20) {
    throw new TypeError(`not an address: ${account}`);
  }
  return buf;
}

function writeIssuedAt(buf: Buffer, word: number, issuedAt: number): void {
  if (!Number.isSafeInteger(issuedAt) || issuedAt < 0) {
    throw new RangeError(`not a unix time: ${issuedAt}`);
  }
  buf.write(issuedAt.toString(16).padStart(64, '0'), word * WORD, WORD, 'hex');
}

/** keccak256(0x19 ‖ 0x01 ‖ domainSeparator ‖ hashStruct(action with issuedAt)). */
export function subscriptionActionDigest(
  domainSeparator: Uint8Array,
  action: SubscriptionAction,
  issuedAt: number,
): Uint8Array {
  let struct: Buffer;
  switch (action.kind) {
    case 'subscribe':
      struct = structBuffer(7, SUBSCRIBE_TYPE_HASH, action.account);
      struct.set(keccakText(action.channel), 2 * WORD);
      struct.set(keccakText(action.target), 3 * WORD);
      struct.set(keccakText(action.p256dh), 4 * WORD);
      struct.set(keccakText(action.auth), 5 * WORD);
      writeIssuedAt(struct, 6, issuedAt);
      break;
    case 'list':
      struct = structBuffer(3, LIST_TYPE_HASH, action.account);
      writeIssuedAt(struct, 2, issuedAt);
      break;
    case 'unsubscribe':
      struct = structBuffer(4, UNSUBSCRIBE_TYPE_HASH, action.account);
      struct.set(keccakText(action.id), 2 * WORD);
      writeIssuedAt(struct, 3, issuedAt);
      break;
  }
  return typedDataDigest(domainSeparator, keccak256(struct));
}
