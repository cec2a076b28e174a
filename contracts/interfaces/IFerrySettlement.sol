// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {FillProof} from "../lib/FerryOrder.sol";

/// @notice What an input-chain escrow exposes to its settler: the one contract allowed to tell the escrow "these
/// orders were filled on their output chains, pay their fillers". With LayerZero the settler is Ferry's app on the
/// input chain (FerryApp), which settles only what a verified message from its peer on the output chain proves;
/// on chains LayerZero does not reach it is the AttesterMessenger.
interface IFerrySettlement {
  function settler() external view returns (address);

  /// @dev Settles every proof whose terms match an Active deposit's commitment for `filler` and `outputChainId`, and
  /// skips (with SettleSkipped) the others, so one stale proof never blocks a batch. A payout the token refuses is
  /// credited to the filler (withdrawn later) instead of reverting, so the settlement never depends on the token:
  /// it reverts only when a run's sum of amounts (or a credit) overflows, which only deposits near 2^256 of one
  /// token can cause; a filler whose message stays blocked that way proves the other fills again in a message of
  /// their own (prove is repeatable). `outputChainId` is the chain the settler knows the fills were made on (for
  /// FerryApp: the chain of the verified message's source).
  function settleFills(uint256 outputChainId, address filler, FillProof[] calldata proofs) external;
}
