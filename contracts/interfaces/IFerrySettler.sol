// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @notice What an escrow asks its settler (FerryApp, or the AttesterMessenger) when it opens an order: the contract
/// on the output chain that fills it, for the order's ERC-7683 fill instruction.
interface IFerrySettler {
  /// @return settler Ferry's app on `chainId` (left-padded), or zero when this settler knows none there.
  function destinationSettlerOf(uint256 chainId) external view returns (bytes32 settler);
}
