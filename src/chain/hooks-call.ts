/**
 * An order's hooks as the settlement runs them: one interaction calling the network's
 * HooksTrampoline with all of them (reference §4.1 step 13), never the hooks' own targets, so
 * no hook acts as the settlement contract and none can revert the batch. The ABI is the
 * devnet's trampoline's, whose `execute` is the one CoW Protocol deploys on every network.
 */
import { Interface } from 'ethers';
import type { Hook } from '../domain/app-data.js';
import type { Address, Hex, Interaction } from '../domain/events.js';
import { hooksTrampolineArtifact } from './devnet/artifacts.js';

const TRAMPOLINE = new Interface(hooksTrampolineArtifact().abi);

/** `execute(hooks)` on `trampoline`, without ether; null for no hooks. */
export function hooksInteraction(trampoline: Address, hooks: readonly Hook[]): Interaction | null {
  if (hooks.length === 0) return null;
  const callData = TRAMPOLINE.encodeFunctionData('execute', [
    hooks.map(({ target, callData, gasLimit }) => ({ target, callData, gasLimit })),
  ]) as Hex;
  return { target: trampoline, value: '0', callData };
}
