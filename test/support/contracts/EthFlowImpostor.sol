// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @notice Emits eth-flow events that state whatever a test asks: placed with anvil_setCode at
/// an eth-flow contract's address, it shows the indexer placements the contract never made.
contract EthFlowImpostor {
    struct Order {
        address sellToken;
        address buyToken;
        address receiver;
        uint256 sellAmount;
        uint256 buyAmount;
        uint32 validTo;
        bytes32 appData;
        uint256 feeAmount;
        bytes32 kind;
        bool partiallyFillable;
        bytes32 sellTokenBalance;
        bytes32 buyTokenBalance;
    }

    struct OnchainSignature {
        uint8 scheme;
        bytes data;
    }

    event OrderPlacement(
        address indexed sender,
        Order order,
        OnchainSignature signature,
        bytes data
    );

    function place(Order calldata order, OnchainSignature calldata signature, bytes calldata data)
        external
    {
        emit OrderPlacement(msg.sender, order, signature, data);
    }

    /// @notice An OrderPlacement log whose data is `data`, however malformed.
    function placeRaw(bytes calldata data) external {
        bytes32 topic = OrderPlacement.selector;
        bytes memory copy = data;
        address sender = msg.sender;
        assembly ("memory-safe") {
            log2(add(copy, 0x20), mload(copy), topic, sender)
        }
    }
}
