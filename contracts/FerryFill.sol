// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {FerryOrder, Order} from "./lib/FerryOrder.sol";

/// @title FerryFill
/// @notice Output-chain half of a Ferry swap. A filler pays the recipient here, with the full order in calldata: the
/// contract recomputes the orderHash itself (under the input escrow's domain) and pays exactly what the order says,
/// so a recorded fill always matches an order the offerer signed. Until the order's exclusivityDeadline only its
/// filler may fill (unless that is the zero address: open from the start); after it anyone may, until fillDeadline.
/// Whoever fills is the filler of record, whom the proof names and the escrow pays. FerryApp adds the LayerZero
/// proof on top; on chains settled by the attester this contract is deployed alone.
contract FerryFill is ReentrancyGuardTransient {
  using SafeERC20 for IERC20;

  event Filled(
    bytes32 indexed orderHash, address indexed filler, address recipient, address outputToken, uint256 outputAmount
  );

  error WrongChain();
  /// @notice The caller is not the order's filler and the order's exclusivity has not lapsed.
  error NotFiller();
  error AlreadyFilled();
  error FillDeadlinePassed();

  /// @dev Each order's fill: the filler of record in the low 160 bits, the block time above them; 0 while unfilled.
  /// One fill per order: a second payment would never be reimbursed.
  mapping(bytes32 orderHash => uint256) internal fills;

  /// @notice The block time of the order's fill; 0 while unfilled.
  function fillTimes(bytes32 orderHash) public view returns (uint256) {
    return fills[orderHash] >> 160;
  }

  /// @notice Who filled the order (the filler of record, whom its proof names); zero while unfilled.
  function fillerOf(bytes32 orderHash) public view returns (address) {
    return address(uint160(fills[orderHash]));
  }

  /// @notice Moves exactly `order.outputAmount` of `order.outputToken` from the caller to `order.recipient` (needs
  /// approval). `escrow` is the order's escrow on the input chain.
  function fill(Order calldata order, address escrow) external nonReentrant returns (bytes32) {
    return _fill(order, escrow);
  }

  function _fill(Order calldata order, address escrow) internal returns (bytes32 orderHash) {
    if (block.chainid != order.outputChainId) revert WrongChain();
    if (block.timestamp > order.fillDeadline) revert FillDeadlinePassed();
    if (msg.sender != order.filler && order.filler != address(0) && block.timestamp <= order.exclusivityDeadline) {
      revert NotFiller();
    }
    orderHash = FerryOrder.hash(order, escrow);
    if (fills[orderHash] != 0) revert AlreadyFilled();
    fills[orderHash] = uint256(uint160(msg.sender)) | (block.timestamp << 160);
    IERC20(order.outputToken).safeTransferFrom(msg.sender, order.recipient, order.outputAmount);
    emit Filled(orderHash, msg.sender, order.recipient, order.outputToken, order.outputAmount);
  }
}
