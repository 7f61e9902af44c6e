/**
 * The devnet's HooksTrampoline at CoW Protocol's canonical address, as on mainnet. Its code is
 * what the committed creation code leaves behind with the settlement contract as its immutable,
 * computed by an `eth_call` of the creation code (no transaction: no nonce or block changes)
 * and placed with `anvil_setCode`. Idempotent: against a persisted chain that already holds this
 * code it writes nothing; a chain saved before the trampoline existed, or with an older build of
 * it, gets the current one.
 */
import { Contract, Interface, concat, type JsonRpcProvider } from 'ethers';
import type { Address } from '../../domain/events.js';
import { HOOKS_TRAMPOLINE } from '../../domain/networks.js';
import { hooksTrampolineArtifact } from './artifacts.js';

export async function placeHooksTrampoline(
  provider: JsonRpcProvider,
  settlement: Address,
): Promise<Address> {
  const { abi, bytecode } = hooksTrampolineArtifact();
  const trampoline = new Interface(abi);
  const initCode = concat([bytecode, trampoline.encodeDeploy([settlement])]);
  const runtime: string = await provider.send('eth_call', [{ data: initCode }, 'latest']);
  if (runtime === '0x') throw new Error('the HooksTrampoline creation code left no code');
  if ((await provider.getCode(HOOKS_TRAMPOLINE)).toLowerCase() !== runtime.toLowerCase())
    await provider.send('anvil_setCode', [HOOKS_TRAMPOLINE, runtime]);
  const wired = (
    await new Contract(HOOKS_TRAMPOLINE, trampoline, provider).getFunction('settlement')()
  ).toLowerCase();
  if (wired !== settlement)
    throw new Error(`HooksTrampoline at ${HOOKS_TRAMPOLINE} serves ${wired}, not ${settlement}`);
  return HOOKS_TRAMPOLINE;
}
