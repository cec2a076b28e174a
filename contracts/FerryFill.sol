// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SafeTransfer} from "./lib/SafeTransfer.sol";

/// @title FerryFill
/// @notice Output-chain half of a Ferry swap. A filler pays the recipient here; the resulting Filled event is
/// what the messenger proves to the input-chain escrow, which then pays the filler.
/// @dev This contract cannot recompute the orderHash (it lacks the input-chain fields), so it only records
/// what was paid under which hash. Checking that the payment matches the order - token, amount, recipient,
/// designated filler, deadline - is the messenger's job (see docs/trust-model.md).
contract FerryFill {
  using SafeTransfer for address;

  event Filled(
    bytes32 indexed orderHash, address indexed filler, address recipient, address outputToken, uint256 outputAmount
  );

  error AlreadyFilled();
  error FillDeadlinePassed();
  error Reentrancy();

  /// @notice Whether `filler` has filled `orderHash`. Keyed by filler as well: a stranger paying under the same
  /// hash (which the messenger never attests, the order names its filler) must not block the designated filler.
  mapping(bytes32 orderHash => mapping(address filler => bool)) public filled;

  uint256 private lock = 1;

  modifier nonReentrant() {
    if (lock != 1) revert Reentrancy();
    lock = 2;
    _;
    lock = 1;
  }

  /// @notice Moves exactly `outputAmount` of `outputToken` from the caller to `recipient` (needs approval).
  function fill(bytes32 orderHash, address outputToken, uint256 outputAmount, address recipient, uint256 fillDeadline)
    external
    nonReentrant
  {
    if (block.timestamp > fillDeadline) revert FillDeadlinePassed();
    // One fill per order and filler: a second payment would never be reimbursed.
    if (filled[orderHash][msg.sender]) revert AlreadyFilled();
    filled[orderHash][msg.sender] = true;
    outputToken.safeTransferFrom(msg.sender, recipient, outputAmount);
    emit Filled(orderHash, msg.sender, recipient, outputToken, outputAmount);
  }
}
