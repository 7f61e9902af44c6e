/**
 * Orders that replace another (reference §4.1 step 3): the app data names the old order's UID
 * in `metadata.replacedOrder.uid`, as the CoW Swap UI does when a user edits an order.
 */
import type { BaseWallet } from 'ethers';
import {
  CHAIN_ID,
  presignOrder,
  signOrder,
  type OrderParams,
  type SignedOrder,
} from './signing.js';

/** The app-data document of an order replacing `uid`. */
export const replacing = (uid: string): string =>
  JSON.stringify({ version: '1.1.0', metadata: { replacedOrder: { uid } } });

let distinct = 0;
/** Distinct sell amounts keep every order's UID apart. */
export const distinctAmount = (): string => String(2_000_000 + ++distinct);

/** A devnet order of `wallet` replacing `uid`, signed with EIP-712. */
export function signReplacement(
  wallet: BaseWallet,
  uid: string,
  nowSeconds: number,
  overrides: Partial<OrderParams> = {},
): Promise<SignedOrder> {
  return signOrder(
    wallet,
    CHAIN_ID.devnet,
    { appData: replacing(uid), sellAmount: distinctAmount(), ...overrides },
    'eip712',
    { nowSeconds },
  );
}

/** A presigned (non-ECDSA) devnet order of `owner` replacing `uid`. */
export function presignReplacement(owner: string, uid: string, nowSeconds: number): SignedOrder {
  return presignOrder(
    owner,
    CHAIN_ID.devnet,
    { appData: replacing(uid), sellAmount: distinctAmount() },
    { nowSeconds },
  );
}
