// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ECDSA} from "./ECDSA.sol";

interface IERC1271 {
  function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4 magicValue);
}

/// @notice Checks that `signer` signed `digest`: with ECDSA when the signer has no code, with EIP-1271 when it is a
/// contract (a Safe, a smart account), so treasuries that hold funds in contract wallets can be offerers.
library SignatureCheck {
  bytes4 private constant ERC1271_MAGIC = IERC1271.isValidSignature.selector;

  function isValid(address signer, bytes32 digest, bytes calldata signature) internal view returns (bool) {
    // The common case first: a signature that recovers the signer is valid whatever code the address has (an
    // EOA, or one delegated under EIP-7702, whose key still signs for it), and it skips the signer's cold code
    // lookup (2,600 gas).
    if (signature.length == 65) {
      address recovered = ECDSA.tryRecover(digest, signature);
      // tryRecover answers address(0) for a bad signature: never a match, even for a zero signer.
      if (recovered != address(0) && recovered == signer) return true;
    }
    if (signer.code.length == 0) return ECDSA.recover(digest, signature) == signer;
    // A contract that reverts or answers anything but the magic value has not signed. Any signature length: a
    // Safe's signature is one 65-byte segment per owner.
    (bool ok, bytes memory answer) =
      signer.staticcall(abi.encodeCall(IERC1271.isValidSignature, (digest, signature)));
    return ok && answer.length >= 32 && abi.decode(answer, (bytes4)) == ERC1271_MAGIC;
  }
}
