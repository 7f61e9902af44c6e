/**
 * Accounts the HTTP benches place orders from: funded on the service's own devnet, so that its
 * balance and transfer checks pass as they would for a real trader.
 */
import { Wallet, hexlify, randomBytes } from 'ethers';
import type { DevnetDeployment } from '../../../src/chain/devnet/deploy.js';
import type { Address } from '../../../src/domain/events.js';
import { connectTestChain } from '../../../test/support/chain.js';

/** Who trades what: owners funded on the devnet, so the service's chain checks pass. */
export interface Trading {
  ownerKeys: string[];
  sellTokens: [string, string];
  /** A token the devnet's pools price against both sell tokens (DCOW). */
  pricedBuyToken: string;
}

/** Owners with WETH and DUSD, both approved to the vault relayer (not measured). */
export async function fundOwners(deployment: DevnetDeployment, owners: number): Promise<Trading> {
  const chain = await connectTestChain(deployment);
  const sellTokens: [string, string] = [deployment.weth.address, deployment.tokens[0]!.address];
  const ownerKeys = Array.from({ length: owners }, () => hexlify(randomBytes(32)));
  for (const key of ownerKeys) {
    const owner = new Wallet(key).address as Address;
    for (const token of sellTokens) await chain.fund(owner, token as Address, 10n ** 24n);
  }
  await chain.stop();
  const pricedBuyToken = deployment.tokens.find((token) => token.symbol === 'DCOW')!.address;
  return { ownerKeys, sellTokens, pricedBuyToken };
}
