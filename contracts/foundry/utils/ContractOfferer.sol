// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @notice An EIP-1271 offerer (a smart account with one owner key): it answers the magic value only for a digest
/// its owner signed.
contract ContractOfferer {
  address public immutable owner;

  constructor(address owner_) {
    owner = owner_;
  }

  function isValidSignature(bytes32 digest, bytes calldata signature) external view returns (bytes4) {
    (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecover(digest, signature);
    return err == ECDSA.RecoverError.NoError && signer == owner ? this.isValidSignature.selector : bytes4(0xffffffff);
  }
}
