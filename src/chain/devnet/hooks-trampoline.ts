/**
 * The devnet's HooksTrampoline at CoW Protocol's canonical address, as on mainnet, with the
 * settlement contract as its immutable (./canonical-code.ts).
 */
import { Contract, type JsonRpcProvider } from 'ethers';
import type { Address } from '../../domain/events.js';
import { HOOKS_TRAMPOLINE } from '../../domain/networks.js';
import { hooksTrampolineArtifact } from './artifacts.js';
import { placeRuntimeCode } from './canonical-code.js';

export async function placeHooksTrampoline(
  provider: JsonRpcProvider,
  settlement: Address,
): Promise<Address> {
  const artifact = hooksTrampolineArtifact();
  await placeRuntimeCode(provider, artifact, [settlement], HOOKS_TRAMPOLINE);
  const wired = (
    await new Contract(HOOKS_TRAMPOLINE, artifact.abi, provider).getFunction('settlement')()
  ).toLowerCase();
  if (wired !== settlement)
    throw new Error(`HooksTrampoline at ${HOOKS_TRAMPOLINE} serves ${wired}, not ${settlement}`);
  return HOOKS_TRAMPOLINE;
}
