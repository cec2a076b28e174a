// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {FerryOrder, Order} from "./lib/FerryOrder.sol";

/// @title FerryFill
/// @notice Output-chain half of a Ferry swap. The order's designated filler pays the recipient here, with the full
/// order in calldata: the contract recomputes the orderHash itself (under the input escrow's domain) and pays
/// exactly what the order says, so a recorded fill always matches an order the offerer signed. FerryApp adds the
/// LayerZero proof on top; on chains settled by the attester this contract is deployed alone.
contract FerryFill is ReentrancyGuardTransient {
  using SafeERC20 for IERC20;

  event Filled(
    bytes32 indexed orderHash, address indexed filler, address recipient, address outputToken, uint256 outputAmount
  );

  error WrongChain();
  error NotFiller();
  error AlreadyFilled();
  error FillDeadlinePassed();

  /// @notice The block time of each order's fill; 0 while unfilled. One fill per order: only the order's filler
  /// may fill it, and a second payment would never be reimbursed.
  mapping(bytes32 orderHash => uint256) public fillTimes;

  /// @notice Moves exactly `order.outputAmount` of `order.outputToken` from the caller, who must be the order's
  /// filler, to `order.recipient` (needs approval). `escrow` is the order's escrow on the input chain.
  function fill(Order calldata order, address escrow) external nonReentrant returns (bytes32) {
    return _fill(order, escrow);
  }

  function _fill(Order calldata order, address escrow) internal returns (bytes32 orderHash) {
    if (block.chainid != order.outputChainId) revert WrongChain();
    if (block.timestamp > order.fillDeadline) revert FillDeadlinePassed();
    if (msg.sender != order.filler) revert NotFiller();
    orderHash = FerryOrder.hash(order, escrow);
    if (fillTimes[orderHash] != 0) revert AlreadyFilled();
    fillTimes[orderHash] = block.timestamp;
    IERC20(order.outputToken).safeTransferFrom(msg.sender, order.recipient, order.outputAmount);
    emit Filled(orderHash, msg.sender, order.recipient, order.outputToken, order.outputAmount);
  }
}
