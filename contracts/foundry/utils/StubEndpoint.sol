// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @notice Just enough of a LayerZero endpoint for FerryApp's constructor (OApp sets its delegate): the suites use
/// FerryApp's output side only (fills, ERC-7683 fill, destinationSettlerOf), which sends no message.
contract StubEndpoint {
  function setDelegate(address) external {}
}
