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

  /// @notice Who filled each order; address(0) while unfilled.
  mapping(bytes32 orderHash => address) public filledBy;

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
    // One fill per order: a second payment would never be reimbursed.
    if (filledBy[orderHash] != address(0)) revert AlreadyFilled();
    filledBy[orderHash] = msg.sender;
    outputToken.safeTransferFrom(msg.sender, recipient, outputAmount);
    emit Filled(orderHash, msg.sender, recipient, outputToken, outputAmount);
  }
}
