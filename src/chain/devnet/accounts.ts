/**
 * The devnet's accounts, the same on every anvil devnet: anvil's default mnemonic derives them,
 * so they are known without a node. Five funded demo accounts, the allow-listed solver, and the
 * deployer.
 */
import { HDNodeWallet } from 'ethers';
import type { Address, Hex } from '../../domain/events.js';

export interface DevnetAccount {
  address: Address;
  privateKey: Hex;
}

/** anvil's default mnemonic: its accounts are the node's unlocked dev accounts. */
const MNEMONIC = 'test test test test test test test test test test test junk';
const DEMO_ACCOUNT_INDEXES = [0, 1, 2, 3, 4];
const SOLVER_INDEX = 8;
/** Used for nothing else before the tokens, so their addresses are the same on every chain. */
const DEPLOYER_INDEX = 9;

const lower = (address: string) => address.toLowerCase() as Address;

export interface DevnetRoles {
  accounts: DevnetAccount[];
  solver: DevnetAccount;
  deployer: DevnetAccount;
}

let roles: DevnetRoles | undefined;

/** Derived once per process: the mnemonic's key stretching costs a noticeable ~0.2 s. */
export function devnetRoles(): DevnetRoles {
  if (roles) return roles;
  const keys = HDNodeWallet.fromPhrase(MNEMONIC, undefined, "m/44'/60'/0'/0");
  const account = (index: number): DevnetAccount => {
    const key = keys.deriveChild(index);
    return { address: lower(key.address), privateKey: key.privateKey as Hex };
  };
  roles = {
    accounts: DEMO_ACCOUNT_INDEXES.map(account),
    solver: account(SOLVER_INDEX),
    deployer: account(DEPLOYER_INDEX),
  };
  return roles;
}

/** The funded demo accounts of any devnet deployment, without a node. */
export const devnetDemoAccounts = (): readonly DevnetAccount[] => devnetRoles().accounts;

/** The devnet's allow-listed solver: the settlement driver's account on any anvil devnet. */
export const devnetSolver = (): DevnetAccount => devnetRoles().solver;
