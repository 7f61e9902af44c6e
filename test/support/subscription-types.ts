/**
 * The EIP-712 types a wallet signs a subscription action with, keyed by the action's kind:
 * spelled out here, apart from src/subscriptions, so the suites check the service's structs and
 * digests against a copy of their own.
 */
import type { TypedDataField } from 'ethers';

export const SUBSCRIPTION_TYPES: Record<string, Record<string, TypedDataField[]>> = {
  subscribe: {
    Subscribe: [
      { name: 'account', type: 'address' },
      { name: 'channel', type: 'string' },
      { name: 'target', type: 'string' },
      { name: 'p256dh', type: 'string' },
      { name: 'auth', type: 'string' },
      { name: 'issuedAt', type: 'uint256' },
    ],
  },
  list: {
    ListSubscriptions: [
      { name: 'account', type: 'address' },
      { name: 'issuedAt', type: 'uint256' },
    ],
  },
  unsubscribe: {
    Unsubscribe: [
      { name: 'account', type: 'address' },
      { name: 'id', type: 'string' },
      { name: 'issuedAt', type: 'uint256' },
    ],
  },
};
