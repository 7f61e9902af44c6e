/**
 * Signing in the browser with viem: a devnet demo account (its key derived here from anvil's
 * published mnemonic) or the injected EIP-1193 wallet (`window.ethereum`), which asks its user.
 * Loaded only by the pages that sign.
 */
import {
  createPublicClient,
  createWalletClient,
  custom,
  type EIP1193Provider,
  type Hex,
  type PublicClient,
  type TypedDataDomain,
  type WalletClient,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { DEVNET_DEMO_MNEMONIC } from './networks.js';
import type { WalletChoice } from './wallet-choice.js';

export interface ConnectedWallet {
  address: Hex;
  walletClient: WalletClient;
  publicClient: PublicClient;
  /** The demo account's key: the SDK's adapter signs with it locally. */
  privateKey: Hex | null;
}

declare global {
  interface Window {
    ethereum?: EIP1193Provider;
  }
}

/** A demo account reads nothing from a node: any request is a mistake, said so. */
const noNode = custom({
  request: async () => {
    throw new Error('a demo account signs locally and reads no chain');
  },
});

export async function connectWallet(choice: WalletChoice): Promise<ConnectedWallet> {
  if (choice.kind === 'demo') {
    const account = mnemonicToAccount(DEVNET_DEMO_MNEMONIC, { addressIndex: choice.index });
    const key = account.getHdKey().privateKey;
    const privateKey = key
      ? (`0x${[...key].map((b) => b.toString(16).padStart(2, '0')).join('')}` as Hex)
      : null;
    return {
      address: account.address,
      walletClient: createWalletClient({ account, transport: noNode }),
      publicClient: createPublicClient({ transport: noNode }),
      privateKey,
    };
  }
  const ethereum = window.ethereum;
  if (!ethereum)
    throw new Error(
      'no browser wallet (EIP-1193) was found: install one, or use a demo account on the devnet',
    );
  const [address] = (await ethereum.request({ method: 'eth_requestAccounts' })) as Hex[];
  if (!address) throw new Error('the wallet gave no account');
  return {
    address,
    walletClient: createWalletClient({ account: address, transport: custom(ethereum) }),
    publicClient: createPublicClient({ transport: custom(ethereum) }),
    privateKey: null,
  };
}

export interface TypedRequest {
  domain: TypedDataDomain;
  types: Record<string, readonly { name: string; type: string }[]>;
  primaryType: string;
  message: Record<string, unknown>;
}

/** `eth_signTypedData_v4` of the request (viem builds the domain's type itself). */
export async function signTyped(wallet: ConnectedWallet, request: TypedRequest): Promise<Hex> {
  const { EIP712Domain: _domainType, ...types } = request.types;
  return wallet.walletClient.signTypedData({
    account: wallet.walletClient.account ?? wallet.address,
    domain: request.domain,
    types,
    primaryType: request.primaryType,
    message: request.message,
  });
}
