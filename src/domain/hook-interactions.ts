/**
 * Whether an order's interactions are safe for the settlement contract to run: each must call
 * the network's HooksTrampoline, or be an eth-flow order's `wrapAll` of one of the network's
 * eth-flow contracts. Orders placed before hooks went through the trampoline carry their hooks'
 * raw calls, which would run as the settlement contract itself (with its token buffers and
 * approvals) and could revert the batch: those never settle.
 */
import { isEthFlowWrap } from './eth-flow.js';
import type { Interaction } from './events.js';
import type { Network } from './networks.js';

/** What an order's interactions may call on a network. */
export type InteractionTargets = Pick<Network, 'hooksTrampoline' | 'ethFlowContracts'>;

export function onlyThroughTrampoline(
  targets: InteractionTargets,
  ...stages: readonly (readonly Interaction[])[]
): boolean {
  return stages.every((stage) =>
    stage.every(
      (interaction) =>
        interaction.target === targets.hooksTrampoline || isEthFlowWrap(targets, interaction),
    ),
  );
}
