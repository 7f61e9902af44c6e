// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

interface IWrappedNativeToken {
    function approve(address spender, uint256 amount) external returns (bool);
    function withdraw(uint256 amount) external;
}

interface ICoWSwapSettlement {
    function vaultRelayer() external view returns (address);
    function filledAmount(bytes calldata orderUid) external view returns (uint256);
}

/// @title CoWSwapEthFlow
/// @notice Sells native ETH through CoW Protocol: a trader sends the ETH with `createOrder`, and
/// this contract owns the resulting order, which it signs by EIP-1271 while the order it recorded
/// for the trader is still valid. The settlement wraps the ETH (`wrapAll`, the order's
/// pre-interaction) and the vault relayer pulls the WETH from here. The trader (or, once the
/// order expired, anyone) invalidates it and gets back what was not traded.
/// Written for batchbook after the public interface and behaviour of CoW Protocol's contract
/// of the same name, so the SDK and the order book's indexer work with it unchanged.
contract CoWSwapEthFlow {
    /// @notice An eth-flow order as the trader states it; `validTo` is the trader's deadline,
    /// `quoteId` only travels in the placement event.
    struct EthFlowOrder {
        address buyToken;
        address receiver;
        uint256 sellAmount;
        uint256 buyAmount;
        bytes32 appData;
        uint256 feeAmount;
        uint32 validTo;
        bool partiallyFillable;
        int64 quoteId;
    }

    /// @notice GPv2's order, field for field (the settlement contract's `GPv2Order.Data`).
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

    enum OnchainSigningScheme {
        Eip1271,
        PreSign
    }

    struct OnchainSignature {
        OnchainSigningScheme scheme;
        bytes data;
    }

    /// @notice Whose order a hash is and until when it may trade.
    struct OnchainData {
        address owner;
        uint32 validTo;
    }

    /// @notice An order placed on chain: `data` is the quote id (8 bytes) and the trader's
    /// deadline (4 bytes), big-endian.
    event OrderPlacement(
        address indexed sender,
        Order order,
        OnchainSignature signature,
        bytes data
    );
    /// @notice The trader withdrew a still valid order.
    event OrderInvalidation(bytes orderUid);
    /// @notice An expired order was closed and its ETH returned, at `refunder`'s request.
    event OrderRefund(bytes orderUid, address indexed refunder);

    error OrderIsAlreadyOwned(bytes32 orderHash);
    error OrderIsAlreadyExpired();
    error IncorrectEthAmount();
    error NotAllowedZeroSellAmount();
    error NotAllowedToInvalidateOrder(bytes32 orderHash);
    error EthTransferFailed();
    error ReceiverMustBeSet();

    ICoWSwapSettlement public immutable cowSwapSettlement;
    IWrappedNativeToken public immutable wrappedNativeToken;
    /// @dev The settlement's EIP-712 domain on this chain: the chain id is fixed at deployment.
    bytes32 private immutable domainSeparator;

    mapping(bytes32 => OnchainData) public orders;

    address private constant NO_OWNER = address(0);
    address private constant INVALIDATED_OWNER = address(type(uint160).max);
    bytes32 private constant ORDER_TYPE_HASH =
        keccak256(
            "Order(address sellToken,address buyToken,address receiver,uint256 sellAmount,uint256 buyAmount,uint32 validTo,bytes32 appData,uint256 feeAmount,string kind,bool partiallyFillable,string sellTokenBalance,string buyTokenBalance)"
        );
    bytes32 private constant KIND_SELL = keccak256("sell");
    bytes32 private constant BALANCE_ERC20 = keccak256("erc20");
    bytes4 private constant EIP1271_MAGIC_VALUE = 0x1626ba7e;

    constructor(ICoWSwapSettlement settlement, IWrappedNativeToken wrapped) {
        cowSwapSettlement = settlement;
        wrappedNativeToken = wrapped;
        domainSeparator = keccak256(
            abi.encode(
                keccak256(
                    "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
                ),
                keccak256("Gnosis Protocol"),
                keccak256("v2"),
                block.chainid,
                address(settlement)
            )
        );
        wrapped.approve(settlement.vaultRelayer(), type(uint256).max);
    }

    /// @dev Unwrapping sends ETH here.
    receive() external payable {}

    /// @notice Wraps all ETH held here: the settlement calls it before pulling an order's WETH.
    function wrapAll() external {
        wrap(address(this).balance);
    }

    function wrap(uint256 amount) public {
        // `deposit()` by name: some WETH9 builds (the devnet's) have no depositing fallback. Its
        // outcome is ignored, as a failed wrap only means the settlement that needed it reverts.
        (bool success, ) = payable(address(wrappedNativeToken)).call{value: amount}(
            abi.encodeWithSignature("deposit()")
        );
        success;
    }

    function unwrap(uint256 amount) external {
        wrappedNativeToken.withdraw(amount);
    }

    /// @notice Places an order selling exactly the ETH sent (sell amount plus fee); the sender
    /// owns it here.
    function createOrder(EthFlowOrder calldata order) external payable returns (bytes32 orderHash) {
        if (msg.value != order.sellAmount + order.feeAmount) revert IncorrectEthAmount();
        if (order.sellAmount == 0) revert NotAllowedZeroSellAmount();
        if (order.validTo < block.timestamp) revert OrderIsAlreadyExpired();

        Order memory settled = toSettlementOrder(order);
        emit OrderPlacement(
            msg.sender,
            settled,
            OnchainSignature(OnchainSigningScheme.Eip1271, abi.encodePacked(address(this))),
            abi.encodePacked(order.quoteId, order.validTo)
        );
        orderHash = hash(settled);
        if (orders[orderHash].owner != NO_OWNER) revert OrderIsAlreadyOwned(orderHash);
        orders[orderHash] = OnchainData(msg.sender, order.validTo);
    }

    function invalidateOrder(EthFlowOrder calldata order) external {
        invalidate(order, true);
    }

    function invalidateOrdersIgnoringNotAllowed(EthFlowOrder[] calldata orderArray) external {
        for (uint256 i = 0; i < orderArray.length; ++i) invalidate(orderArray[i], false);
    }

    /// @notice EIP-1271: the order is this contract's while its trader's record stands and
    /// has not expired. The signature bytes carry nothing.
    function isValidSignature(bytes32 orderHash, bytes calldata) external view returns (bytes4) {
        OnchainData memory data = orders[orderHash];
        bool valid = data.owner != NO_OWNER &&
            data.owner != INVALIDATED_OWNER &&
            data.validTo >= block.timestamp;
        return valid ? EIP1271_MAGIC_VALUE : bytes4(type(uint32).max);
    }

    /// @dev Closes the order and returns what it did not trade. While it may still trade only
    /// its trader may close it (an invalidation); after its deadline anyone may (a refund).
    function invalidate(EthFlowOrder calldata order, bool revertWhenNotAllowed) private {
        Order memory settled = toSettlementOrder(order);
        bytes32 orderHash = hash(settled);
        OnchainData memory data = orders[orderHash];
        bool tradable = data.validTo >= block.timestamp;
        if (
            data.owner == NO_OWNER ||
            data.owner == INVALIDATED_OWNER ||
            (tradable && data.owner != msg.sender)
        ) {
            if (revertWhenNotAllowed) revert NotAllowedToInvalidateOrder(orderHash);
            return;
        }
        orders[orderHash].owner = INVALIDATED_OWNER;

        bytes memory orderUid = abi.encodePacked(orderHash, address(this), settled.validTo);
        if (tradable) emit OrderInvalidation(orderUid);
        else emit OrderRefund(orderUid, msg.sender);

        // The settlement charges the fee in proportion to what it filled, rounded down, so the
        // fee left to return is at least what a single fill of the same amount would leave.
        uint256 filled = cowSwapSettlement.filledAmount(orderUid);
        uint256 refund = settled.sellAmount -
            filled +
            settled.feeAmount -
            (settled.feeAmount * filled) /
            settled.sellAmount;
        uint256 held = address(this).balance;
        if (held < refund) wrappedNativeToken.withdraw(refund - held);
        (bool sent, ) = payable(data.owner).call{value: refund}("");
        if (!sent) revert EthTransferFailed();
    }

    /// @dev The settlement's order for an eth-flow order: WETH sold, never expiring (an expired
    /// GPv2 order's fill record may be cleared, and the refund relies on it), sell kind, ERC-20
    /// balances. A zero receiver would send the proceeds here, where they would be lost.
    function toSettlementOrder(EthFlowOrder calldata order) private view returns (Order memory) {
        if (order.receiver == address(0)) revert ReceiverMustBeSet();
        return
            Order(
                address(wrappedNativeToken),
                order.buyToken,
                order.receiver,
                order.sellAmount,
                order.buyAmount,
                type(uint32).max,
                order.appData,
                order.feeAmount,
                KIND_SELL,
                order.partiallyFillable,
                BALANCE_ERC20,
                BALANCE_ERC20
            );
    }

    /// @dev The settlement's EIP-712 digest of `order`.
    function hash(Order memory order) private view returns (bytes32) {
        // Static words only, so the two halves concatenated are the whole struct's encoding
        // (one abi.encode of all thirteen runs out of stack).
        bytes32 structHash = keccak256(
            bytes.concat(
                abi.encode(
                    ORDER_TYPE_HASH,
                    order.sellToken,
                    order.buyToken,
                    order.receiver,
                    order.sellAmount,
                    order.buyAmount,
                    order.validTo
                ),
                abi.encode(
                    order.appData,
                    order.feeAmount,
                    order.kind,
                    order.partiallyFillable,
                    order.sellTokenBalance,
                    order.buyTokenBalance
                )
            )
        );
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator, structHash));
    }
}
