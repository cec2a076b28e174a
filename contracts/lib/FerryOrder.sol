// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @notice A Ferry order as the offerer signs it (EIP-712 type `Order`). Field order and names must match
/// ORDER_TYPEHASH and the typed data the API hands out.
struct Order {
  address offerer;
  address recipient;
  address inputToken;
  address outputToken;
  uint256 inputAmount;
  uint256 outputAmount;
  uint256 inputChainId;
  uint256 outputChainId;
  address filler;
  uint256 nonce;
  uint256 openDeadline;
  uint256 fillDeadline;
  /// @dev Ferry's protocol fee, in input-token base units: at settlement the escrow pays the filler
  /// inputAmount - protocolFee and protocolFee accrues to the fee recipient; a refund returns the whole inputAmount.
  /// It must be the escrow's protocolFeeBps of inputAmount, rounded down.
  uint256 protocolFee;
  /// @dev Output-chain time until which only `filler` may fill; after it (or from the start when `filler` is the
  /// zero address) any address may fill until fillDeadline, and the escrow pays whoever filled.
  uint256 exclusivityDeadline;
}

/// @notice What the output chain proves to the input chain about one fill: the order's id, the input-side terms
/// the escrow pays out and the exclusivity it granted (each checked against the deposit's commitment, see
/// FerryOrder.settleCommitment) and the block time of the payment (the escrow settles only fills made at or before
/// fillDeadline, and by someone other than the exclusive filler only after exclusivityDeadline). The filler of
/// record (whoever filled) and the output chain are the same for every proof of a message, so they travel once,
/// beside the proofs.
struct FillProof {
  bytes32 orderHash;
  address inputToken;
  uint256 inputAmount;
  uint256 protocolFee;
  uint256 fillDeadline;
  address exclusiveFiller;
  uint256 exclusivityDeadline;
  uint256 fillTime;
}

/// @notice The orderHash: the EIP-712 digest of an order under the domain of the escrow that holds it. Both
/// chains compute it the same way: the domain's chainId is the order's input chain, not the chain computing it.
library FerryOrder {
  /// @notice An address field of the order has bits set above its 160 (calldata no ABI encoder produces).
  error InvalidOrderEncoding();

  bytes32 internal constant ORDER_TYPEHASH = keccak256(
    "Order(address offerer,address recipient,address inputToken,address outputToken,uint256 inputAmount,"
    "uint256 outputAmount,uint256 inputChainId,uint256 outputChainId,address filler,uint256 nonce,"
    "uint256 openDeadline,uint256 fillDeadline,uint256 protocolFee,uint256 exclusivityDeadline)"
  );
  bytes32 internal constant DOMAIN_TYPEHASH =
    keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
  bytes32 private constant NAME_HASH = keccak256("Ferry");
  bytes32 private constant VERSION_HASH = keccak256("1");

  function domainSeparator(uint256 chainId, address escrow) internal pure returns (bytes32 separator) {
    (bytes32 domainTypeHash, bytes32 nameHash, bytes32 versionHash) = (DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH);
    // In scratch memory past the free memory pointer: every hash here is of fixed-size words, so nothing is
    // allocated (an order hashed per proof would otherwise grow memory by 20 words each).
    assembly ("memory-safe") {
      let ptr := mload(0x40)
      mstore(ptr, domainTypeHash)
      mstore(add(ptr, 0x20), nameHash)
      mstore(add(ptr, 0x40), versionHash)
      mstore(add(ptr, 0x60), chainId)
      // Solidity leaves the bits above an address's 160 undefined inside assembly.
      mstore(add(ptr, 0x80), and(escrow, 0xffffffffffffffffffffffffffffffffffffffff))
      separator := keccak256(ptr, 0xa0)
    }
  }

  function hash(Order calldata order, address escrow) internal pure returns (bytes32 digest) {
    bytes32 separator = domainSeparator(order.inputChainId, escrow);
    bytes32 orderTypeHash = ORDER_TYPEHASH;
    bool dirty;
    assembly ("memory-safe") {
      // The hash is of the raw calldata words, so an address word with bits above its 160 would hash to another
      // orderHash for the same order; ABI decoding would refuse it, and so does this.
      dirty := shr(
        160,
        or(
          or(calldataload(order), calldataload(add(order, 0x20))),
          or(or(calldataload(add(order, 0x40)), calldataload(add(order, 0x60))), calldataload(add(order, 0x100)))
        )
      )
    }
    if (dirty) revert InvalidOrderEncoding();
    assembly ("memory-safe") {
      let ptr := mload(0x40)
      // All 14 Order fields are static words, so the struct's calldata is exactly its EIP-712 encodeData.
      mstore(ptr, orderTypeHash)
      calldatacopy(add(ptr, 0x20), order, 0x1c0)
      let structHash := keccak256(ptr, 0x1e0)
      mstore(ptr, 0x1901)
      mstore(add(ptr, 0x20), separator)
      mstore(add(ptr, 0x40), structHash)
      digest := keccak256(add(ptr, 0x1e), 0x42)
    }
  }

  /// @notice What a deposit commits to besides its orderHash: every term a settlement acts on. The escrow keeps
  /// it (truncated to its high 248 bits) in the deposit's one storage slot, so a proof that names an orderHash
  /// can settle it only with these exact terms, this exclusivity and from this output chain.
  function settleCommitment(
    address exclusiveFiller,
    uint256 exclusivityDeadline,
    uint256 outputChainId,
    address inputToken,
    uint256 inputAmount,
    uint256 protocolFee,
    uint256 fillDeadline
  ) internal pure returns (bytes32 commitment) {
    // keccak256(abi.encode(...)) of the seven words, in scratch memory (settleFills computes one per proof).
    assembly ("memory-safe") {
      let ptr := mload(0x40)
      mstore(ptr, and(exclusiveFiller, 0xffffffffffffffffffffffffffffffffffffffff))
      mstore(add(ptr, 0x20), exclusivityDeadline)
      mstore(add(ptr, 0x40), outputChainId)
      mstore(add(ptr, 0x60), and(inputToken, 0xffffffffffffffffffffffffffffffffffffffff))
      mstore(add(ptr, 0x80), inputAmount)
      mstore(add(ptr, 0xa0), protocolFee)
      mstore(add(ptr, 0xc0), fillDeadline)
      commitment := keccak256(ptr, 0xe0)
    }
  }

  /// @notice What the escrow checks of `order`'s fill (FillProof): the terms it pays out and the exclusivity it
  /// granted, matched against the deposit's commitment, and the fill's block time.
  function proofOf(Order calldata order, bytes32 orderHash, uint256 fillTime) internal pure returns (FillProof memory) {
    return FillProof(
      orderHash,
      order.inputToken,
      order.inputAmount,
      order.protocolFee,
      order.fillDeadline,
      order.filler,
      order.exclusivityDeadline,
      fillTime
    );
  }

  /// @notice `order` read from calldata bytes holding exactly its ABI encoding (14 static words) followed by
  /// `trailingWords` more words, without copying it to memory; reverts InvalidOrderEncoding for any other length.
  function fromCalldata(bytes calldata data, uint256 trailingWords) internal pure returns (Order calldata order) {
    if (data.length != 0x1c0 + trailingWords * 0x20) revert InvalidOrderEncoding();
    assembly ("memory-safe") {
      order := data.offset
    }
  }
}
