// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Minimal secp256k1 signature recovery for EIP-712 digests.
/// @dev Only canonical signatures are accepted: a signature (r, s, v) has a twin (r, n - s, v ^ 1) that
/// recovers the same signer, so accepting both would make "the same signature" ambiguous. We pin the
/// lower-s half (as Ethereum transactions do since EIP-2) and v in {27, 28}.
library ECDSA {
  error InvalidSignature();

  /// secp256k1 curve order n, divided by two.
  uint256 private constant HALF_N = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

  /// @notice Recovers the signer of `digest` from a 65-byte `r || s || v` signature.
  function recover(bytes32 digest, bytes calldata signature) internal pure returns (address) {
    if (signature.length != 65) revert InvalidSignature();
    bytes32 r = bytes32(signature[0:32]);
    bytes32 s = bytes32(signature[32:64]);
    uint8 v = uint8(signature[64]);
    return recover(digest, v, r, s);
  }

  /// @notice Like recover, but answers address(0) for a malformed or non-canonical 65-byte signature.
  function tryRecover(bytes32 digest, bytes calldata signature) internal pure returns (address) {
    bytes32 s = bytes32(signature[32:64]);
    uint8 v = uint8(signature[64]);
    if (uint256(s) > HALF_N || (v != 27 && v != 28)) return address(0);
    return ecrecover(digest, v, bytes32(signature[0:32]), s);
  }

  /// @notice Recovers the signer of `digest`; reverts instead of returning address(0).
  function recover(bytes32 digest, uint8 v, bytes32 r, bytes32 s) internal pure returns (address signer) {
    if (uint256(s) > HALF_N || (v != 27 && v != 28)) revert InvalidSignature();
    signer = ecrecover(digest, v, r, s);
    // ecrecover signals failure with address(0); never let that match an uninitialised address field.
    if (signer == address(0)) revert InvalidSignature();
  }
}
