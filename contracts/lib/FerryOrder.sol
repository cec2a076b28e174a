// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

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
  /// @dev Ferry's protocol fee, in input-token base units: the escrow pays the filler inputAmount - protocolFee and
  /// the fee recipient protocolFee at settlement; a refund returns the whole inputAmount.
  uint256 protocolFee;
}

/// @notice What the output chain proves to the input chain about one fill: the order's id, the input-side terms
/// the escrow pays out (each checked against the deposit's commitment, see FerryOrder.settleCommitment) and the
/// block time of the payment (the escrow settles only fills made at or before fillDeadline). The filler and the
/// output chain are the same for every proof of a message, so they travel once, beside the proofs.
struct FillProof {
  bytes32 orderHash;
  address inputToken;
  uint256 inputAmount;
  uint256 protocolFee;
  uint256 fillDeadline;
  uint256 fillTime;
}

/// @notice The orderHash: the EIP-712 digest of an order under the domain of the escrow that holds it. Both
/// chains compute it the same way: the domain's chainId is the order's input chain, not the chain computing it.
library FerryOrder {
  bytes32 internal constant ORDER_TYPEHASH = keccak256(
    "Order(address offerer,address recipient,address inputToken,address outputToken,uint256 inputAmount,"
    "uint256 outputAmount,uint256 inputChainId,uint256 outputChainId,address filler,uint256 nonce,"
    "uint256 openDeadline,uint256 fillDeadline,uint256 protocolFee)"
  );
  bytes32 internal constant DOMAIN_TYPEHASH =
    keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
  bytes32 private constant NAME_HASH = keccak256("Ferry");
  bytes32 private constant VERSION_HASH = keccak256("1");

  function domainSeparator(uint256 chainId, address escrow) internal pure returns (bytes32) {
    return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, chainId, escrow));
  }

  function hash(Order calldata order, address escrow) internal pure returns (bytes32) {
    // All Order fields are static, so abi.encode lays them out as consecutive 32-byte words: exactly the
    // EIP-712 encodeData of the struct.
    bytes32 structHash = keccak256(abi.encode(ORDER_TYPEHASH, order));
    return keccak256(abi.encodePacked("\x19\x01", domainSeparator(order.inputChainId, escrow), structHash));
  }

  /// @notice What a deposit commits to besides its orderHash: every term a settlement acts on. The escrow keeps
  /// it (truncated to its high 248 bits) in the deposit's one storage slot, so a proof that names an orderHash
  /// can settle it only with these exact terms, for this filler, from this output chain.
  function settleCommitment(
    address filler,
    uint256 outputChainId,
    address inputToken,
    uint256 inputAmount,
    uint256 protocolFee,
    uint256 fillDeadline
  ) internal pure returns (bytes32) {
    return keccak256(abi.encode(filler, outputChainId, inputToken, inputAmount, protocolFee, fillDeadline));
  }
}
