// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title A minimal smart-contract wallet for chain tests.
/// @notice Orders it owns use the `eip1271` signing scheme: GPv2Settlement calls
/// `isValidSignature(orderDigest, signature)` here and settles only on the magic value. The
/// wallet approves a digest when its single owner EOA signed it, like a 1-of-1 Safe. Handing the
/// wallet to another owner withdraws every signature the old one gave.
contract Eip1271Wallet {
    /// @dev bytes4(keccak256("isValidSignature(bytes32,bytes)")), fixed by EIP-1271.
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e;
    /// @dev Any other value means "invalid"; 0xffffffff is the customary one.
    bytes4 internal constant INVALID_SIGNATURE = 0xffffffff;

    address public owner;

    constructor(address owner_) {
        owner = owner_;
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "Eip1271Wallet: caller is not the owner");
        _;
    }

    /// @notice Hands the wallet to `newOwner`, as a Safe swaps its owner.
    function setOwner(address newOwner) external onlyOwner {
        owner = newOwner;
    }

    /// @notice The magic value iff `signature` is the owner's 65-byte ECDSA signature of `hash`.
    /// @dev OpenZeppelin's `tryRecover` refuses high-s (malleable) signatures and, through
    /// `ecrecover` returning zero, any v other than 27/28, so one digest has exactly one accepted
    /// signature. It never reverts: a bad signature is an answer, not an error.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address signer, ECDSA.RecoverError error) = ECDSA.tryRecover(hash, signature);
        return error == ECDSA.RecoverError.NoError && signer == owner ? MAGIC_VALUE : INVALID_SIGNATURE;
    }

    /// @notice Calls `target` as the wallet, e.g. to approve the vault relayer for a token.
    /// @dev Owner only, since the call spends the wallet's assets; a failing call bubbles up its
    /// revert data so the test sees the token's own reason.
    function execute(address target, uint256 value, bytes calldata data) external onlyOwner returns (bytes memory) {
        (bool success, bytes memory result) = target.call{value: value}(data);
        if (!success) {
            assembly {
                revert(add(result, 32), mload(result))
            }
        }
        return result;
    }
}
