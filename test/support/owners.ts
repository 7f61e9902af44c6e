/**
 * Order owners the devnet lets trade: a fresh key whose address holds WETH (the default order's
 * sell token, at mainnet's address on the devnet too) and has approved the vault relayer, so
 * the service's on-chain submission checks pass.
 */
import { Wallet } from 'ethers';
import type { Address } from '../../src/domain/events.js';
import { sharedTestChain } from './chain.js';
import { newWallet } from './signing.js';

const WETH_PER_OWNER = 10n * 10n ** 18n;

/** On the test run's devnet, or with `chainId` 1 on its local mainnet. */
export async function fundedWallet(chainId?: number): Promise<Wallet> {
  const wallet = newWallet();
  const chain = await sharedTestChain(chainId);
  await chain.fund(wallet.address as Address, chain.deployment.weth.address, WETH_PER_OWNER);
  return wallet;
}
