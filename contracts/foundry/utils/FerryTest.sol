// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Order} from "../../lib/FerryOrder.sol";
import {FerryEscrow} from "../../FerryEscrow.sol";
import {vm} from "./Vm.sol";

/// @notice Helpers shared by the suites: bounded fuzz inputs, orders, offerer signatures and assertions that say
/// what differed (forge-std's are not available offline).
abstract contract FerryTest {
  function _bound(uint256 x, uint256 min, uint256 max) internal pure returns (uint256) {
    if (max <= min) return min;
    uint256 size = max - min + 1;
    if (size == 0) return x; // the whole uint256 range
    return min + (x % size);
  }

  function _eq(uint256 a, uint256 b, string memory what) internal pure {
    if (a != b) revert(string.concat(what, ": ", vm.toString(a), " != ", vm.toString(b)));
  }

  function _eq(address a, address b, string memory what) internal pure {
    if (a != b) revert(string.concat(what, ": ", vm.toString(a), " != ", vm.toString(b)));
  }

  function _eq(bytes32 a, bytes32 b, string memory what) internal pure {
    if (a != b) revert(string.concat(what, ": ", vm.toString(a), " != ", vm.toString(b)));
  }

  function _true(bool condition, string memory what) internal pure {
    if (!condition) revert(what);
  }

  /// @notice An order of `amount` of `token` with `fee`, filled within `fillIn` seconds of now on chain 10, exclusive
  /// to `filler` for its whole fill window (exclusivityDeadline = fillDeadline).
  function _order(
    address offerer,
    address token,
    address filler,
    uint256 amount,
    uint256 fee,
    uint256 fillIn,
    uint256 nonce
  ) internal view returns (Order memory) {
    return Order({
      offerer: offerer,
      recipient: address(0xBEEF),
      inputToken: token,
      outputToken: address(0xCAFE),
      inputAmount: amount,
      outputAmount: amount,
      inputChainId: block.chainid,
      outputChainId: 10,
      filler: filler,
      nonce: nonce,
      openDeadline: block.timestamp + 60,
      fillDeadline: block.timestamp + 60 + fillIn,
      protocolFee: fee,
      exclusivityDeadline: block.timestamp + 60 + fillIn
    });
  }

  function _sign(FerryEscrow escrow, uint256 privateKey, Order memory order) internal view returns (bytes memory) {
    (uint8 v, bytes32 r, bytes32 s) = vm.sign(privateKey, escrow.hashOrder(order));
    return abi.encodePacked(r, s, v);
  }
}
