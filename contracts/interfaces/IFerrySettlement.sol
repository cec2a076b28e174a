// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {FillProof} from "../lib/FerryOrder.sol";

/// @notice What an input-chain escrow exposes to its settler: the one contract allowed to tell the escrow "these
/// orders were filled on their output chains, pay their fillers". With LayerZero the settler is Ferry's app on the
/// input chain (FerryApp), which settles only what a verified message from its peer on the output chain proves;
/// on chains LayerZero does not reach it is the AttesterMessenger.
interface IFerrySettlement {
  function settler() external view returns (address);

  /// @dev Settles every proof whose terms match an Active deposit's commitment for `filler` and `outputChainId`, and
  /// skips (with SettleSkipped) the others, so one stale proof never blocks a batch; reverts only when a token
  /// transfer fails (or a run's sum of amounts overflows, which only deposits near 2^256 of one token can cause), so
  /// the whole message can be executed again once the token lets it through. A filler whose message stays blocked
  /// proves the other fills again in a message of their own (prove is repeatable). `outputChainId` is
  /// the chain the settler knows the fills were made on (for FerryApp: the chain of the verified message's source).
  function settleFills(uint256 outputChainId, address filler, FillProof[] calldata proofs) external;
}
