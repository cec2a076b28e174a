// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @notice The forge cheatcodes these suites use (forge-std is not on npm in a current version). Signatures as
/// forge 1.7 implements them at the cheatcode address.
interface Vm {
  struct Log {
    bytes32[] topics;
    bytes data;
    address emitter;
  }

  function addr(uint256 privateKey) external pure returns (address);
  function sign(uint256 privateKey, bytes32 digest) external pure returns (uint8 v, bytes32 r, bytes32 s);
  function warp(uint256 timestamp) external;
  function deal(address account, uint256 newBalance) external;
  function chainId(uint256 newChainId) external;
  function prank(address sender) external;
  function startPrank(address sender) external;
  function stopPrank() external;
  function expectRevert() external;
  function expectRevert(bytes4 revertData) external;
  function expectRevert(bytes calldata revertData) external;
  function assume(bool condition) external pure;
  function recordLogs() external;
  function getRecordedLogs() external returns (Log[] memory logs);
  function label(address account, string calldata newLabel) external;
  function toString(uint256 value) external pure returns (string memory);
  function toString(address value) external pure returns (string memory);
  function toString(bytes32 value) external pure returns (string memory);
}

Vm constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));
