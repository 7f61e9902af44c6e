/**
 * Whether an order's interactions are safe for the settlement contract to run: each must call
 * the network's HooksTrampoline. Orders placed before hooks went through the trampoline carry
 * their hooks' raw calls, which would run as the settlement contract itself (with its token
 * buffers and approvals) and could revert the batch: those never settle.
 */
import type { Address, Interaction } from './events.js';

export function onlyThroughTrampoline(
  trampoline: Address,
  ...stages: readonly (readonly Interaction[])[]
): boolean {
  return stages.every((stage) => stage.every((interaction) => interaction.target === trampoline));
}
