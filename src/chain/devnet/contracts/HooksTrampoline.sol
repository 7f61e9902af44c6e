// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title HooksTrampoline
/// @notice The target of every order hook batchbook settles: GPv2Settlement calls `execute`,
/// and the hooks run from here, so they never act with the settlement contract's identity
/// (its token buffers and approvals) and a failing hook cannot revert the batch.
/// Written for batchbook after the behaviour of CoW Protocol's HooksTrampoline.
contract HooksTrampoline {
    struct Hook {
        address target;
        bytes callData;
        uint256 gasLimit;
    }

    /// @notice A caller other than the settlement contract.
    error NotASettlement();
    /// @notice Too little gas left to give a hook its whole gas limit.
    error NotEnoughGas();

    /// @notice The only account allowed to call `execute`.
    address public immutable settlement;

    /// @dev What the CALL itself may cost before it forwards gas (a cold account access is
    /// 2,600) plus the few operations between the check and the call.
    uint256 private constant CALL_COST_RESERVE = 5_000;

    constructor(address settlement_) {
        settlement = settlement_;
    }

    /// @notice Calls each hook in turn with exactly its gas limit and no ether. A hook that
    /// reverts or runs out of gas is skipped; the caller's batch goes on.
    function execute(Hook[] calldata hooks) external {
        if (msg.sender != settlement) revert NotASettlement();
        for (uint256 i = 0; i < hooks.length; ++i) {
            Hook calldata hook = hooks[i];
            address target = hook.target;
            uint256 gasLimit = hook.gasLimit;
            bytes memory callData = hook.callData;
            // EIP-150: a call gets at most 63/64 of the gas left after its own cost. A solver
            // must not be able to make a hook fail by sending the settlement with too little gas.
            uint256 available = gasleft();
            if (
                available < CALL_COST_RESERVE ||
                ((available - CALL_COST_RESERVE) * 63) / 64 < gasLimit
            ) revert NotEnoughGas();
            // The outcome is ignored on purpose, and no return data is copied: a hook returning
            // a huge payload cannot make the trampoline pay for the memory.
            assembly ("memory-safe") {
                pop(call(gasLimit, target, 0, add(callData, 0x20), mload(callData), 0, 0))
            }
        }
    }
}
