// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {FerryEscrow} from "../../FerryEscrow.sol";
import {FerryFill} from "../../FerryFill.sol";
import {FillProof, Order} from "../../lib/FerryOrder.sol";
import {FerryTest} from "./FerryTest.sol";
import {FuzzToken} from "./FuzzToken.sol";
import {Vm, vm} from "./Vm.sol";

/// @notice One escrow, its fill contract and a plain input token, with this contract as the escrow's settler: it
/// delivers FillProofs as FerryApp does after a verified message. Shared by the fuzz suites of one order's life.
abstract contract EscrowFixture is FerryTest {
  uint256 internal constant GRACE = 1 hours;
  uint256 internal constant OFFERER_KEY = 0xA11CE;
  uint256 internal constant OUTPUT_CHAIN = 10;
  address internal constant FILLER = address(0xF111);
  address internal constant FEE_RECIPIENT = address(0xFEE);

  FerryEscrow internal escrow;
  FerryFill internal fillContract;
  FuzzToken internal token;
  FuzzToken internal outputToken;
  address internal offerer;

  function setUp() public {
    vm.warp(1_700_000_000);
    escrow = new FerryEscrow(address(this), GRACE, FEE_RECIPIENT);
    fillContract = new FerryFill();
    token = new FuzzToken(FuzzToken.Kind.Plain, "Input");
    outputToken = new FuzzToken(FuzzToken.Kind.Plain, "Output");
    offerer = vm.addr(OFFERER_KEY);
  }

  // ---------------------------------------------------------------- helpers

  function _fundedOrder(uint256 amount, uint256 fee, uint256 fillIn, uint256 nonce) internal returns (Order memory o) {
    amount = _bound(amount, 1, 1e30);
    o = _order(offerer, address(token), FILLER, amount, _bound(fee, 0, amount), _bound(fillIn, 0, 30 days), nonce);
    token.mint(offerer, amount);
    uint256 allowance = token.allowance(offerer, address(escrow));
    vm.prank(offerer);
    token.approve(address(escrow), allowance + amount);
  }

  function _deposit(Order memory o) internal returns (bytes32) {
    return escrow.deposit(o, _sign(escrow, OFFERER_KEY, o));
  }

  function _proof(Order memory o, uint256 fillTime) internal view returns (FillProof memory) {
    return FillProof({
      orderHash: escrow.hashOrder(o),
      inputToken: o.inputToken,
      inputAmount: o.inputAmount,
      protocolFee: o.protocolFee,
      fillDeadline: o.fillDeadline,
      fillTime: fillTime
    });
  }

  function _settle(uint256 outputChainId, address filler, FillProof memory proof) internal {
    FillProof[] memory proofs = new FillProof[](1);
    proofs[0] = proof;
    escrow.settleFills(outputChainId, filler, proofs);
  }

  // ---------------------------------------------------------------- helpers over logs and fees

  /// @dev The reason of the SettleSkipped event for `orderHash` among the recorded logs (reverts when none).
  function _skipReason(bytes32 orderHash) internal returns (uint256) {
    Vm.Log[] memory logs = vm.getRecordedLogs();
    for (uint256 i = 0; i < logs.length; ++i) {
      if (logs[i].topics[0] == FerryEscrow.SettleSkipped.selector && logs[i].topics[1] == orderHash) {
        return abi.decode(logs[i].data, (uint256));
      }
    }
    revert("no SettleSkipped");
  }

  function _feesPaidOrOwed() internal view returns (uint256) {
    return token.balanceOf(FEE_RECIPIENT) + _owed(FEE_RECIPIENT);
  }

  function _owedInEscrow() internal view returns (uint256) {
    return _owed(FEE_RECIPIENT) + _owed(FILLER) + _owed(offerer);
  }

  function _owed(address account) internal view returns (uint256) {
    return escrow.owed(address(token), account);
  }
}
