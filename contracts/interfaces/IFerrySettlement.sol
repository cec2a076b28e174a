// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice What an input-chain escrow exposes to its messenger. The messenger is the single contract that
/// is allowed to tell the escrow "this order was filled on the output chain, pay the filler".
interface IFerrySettlement {
  function messenger() external view returns (address);

  function settle(bytes32 orderHash) external;
}
