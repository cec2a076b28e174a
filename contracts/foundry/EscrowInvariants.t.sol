// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {FerryEscrow} from "../FerryEscrow.sol";
import {EscrowHandler} from "./EscrowHandler.sol";
import {FerryTest} from "./utils/FerryTest.sol";
import {FuzzToken} from "./utils/FuzzToken.sol";
import {vm} from "./utils/Vm.sol";

/// @notice Invariants of FerryEscrow under random sequences of every external function (see EscrowHandler), with
/// random actors, four kinds of token and random times. Runs and depth: foundry.toml ([invariant]).
contract EscrowInvariantsTest is FerryTest {
  struct FuzzSelector {
    address addr;
    bytes4[] selectors;
  }

  EscrowHandler internal handler;

  function setUp() public {
    vm.warp(1_700_000_000);
    handler = new EscrowHandler();
  }

  /// @dev Read by forge: the handler is the only contract the fuzzer calls, through these functions.
  function targetContracts() public view returns (address[] memory targets) {
    targets = new address[](1);
    targets[0] = address(handler);
  }

  function targetSelectors() public view returns (FuzzSelector[] memory targets) {
    bytes4[] memory selectors = new bytes4[](7);
    selectors[0] = EscrowHandler.deposit.selector;
    selectors[1] = EscrowHandler.fill.selector;
    selectors[2] = EscrowHandler.prove.selector;
    selectors[3] = EscrowHandler.refund.selector;
    selectors[4] = EscrowHandler.withdraw.selector;
    selectors[5] = EscrowHandler.warp.selector;
    selectors[6] = EscrowHandler.tokenAdmin.selector;
    targets = new FuzzSelector[](1);
    targets[0] = FuzzSelector(address(handler), selectors);
  }

  /// @notice Every deposit ends at most once: Settled xor Refunded, with exactly one Settled or Refunded event, and
  /// its status only ever moved Active to Settled or Active to Refunded through a call the handler made.
  function invariant_depositEndsAtMostOnce() public view {
    FerryEscrow escrow = handler.escrow();
    (bytes32[] memory hashes, uint8[] memory ghost, uint256[] memory settled, uint256[] memory refunded,) =
      handler.ledger();
    for (uint256 i = 0; i < hashes.length; ++i) {
      uint256 status = escrow.orderStatus(hashes[i]);
      _true(settled[i] + refunded[i] <= 1, "a deposit ended twice");
      _true(status != 1 || settled[i] + refunded[i] == 0, "an Active deposit has an ending event");
      _true(status != 2 || (settled[i] == 1 && refunded[i] == 0), "a Settled deposit without exactly one Settled event");
      _true(
        status != 3 || (refunded[i] == 1 && settled[i] == 0), "a Refunded deposit without exactly one Refunded event"
      );
      if (status != ghost[i]) _eq(status, ghost[i], "status changed outside the handler's books");
    }
  }

  /// @notice The escrow holds, per token, exactly the inputs of its Active deposits plus what it owes (accrued fees
  /// and payouts whose transfer failed): nothing is lost, nothing is paid twice.
  function invariant_escrowBalanceIsActiveDepositsPlusOwed() public view {
    FerryEscrow escrow = handler.escrow();
    address[] memory accounts = handler.accounts();
    for (uint256 t = 0; t < 4; ++t) {
      FuzzToken token = handler.token(t);
      uint256 expected = handler.activeInputs(address(token));
      for (uint256 a = 0; a < accounts.length; ++a) {
        expected += escrow.owed(address(token), accounts[a]);
      }
      uint256 balance = token.balanceOf(address(escrow));
      if (balance != expected) _eq(balance, expected, string.concat(token.name(), ": escrow balance"));
    }
  }

  /// @notice Nobody but a filler (whoever filled: the exclusive filler or, after the exclusivity, another), an
  /// offerer or the fee recipient ever receives tokens from
  /// the escrow, and each of them receives (or is owed) exactly what its settled or refunded orders give it.
  function invariant_onlyFillerOffererOrFeeRecipientPaid() public view {
    FerryEscrow escrow = handler.escrow();
    address[] memory accounts = handler.accounts();
    for (uint256 t = 0; t < 4; ++t) {
      FuzzToken token = handler.token(t);
      address[] memory payees = token.payeesOfWatched();
      for (uint256 p = 0; p < payees.length; ++p) {
        _true(_contains(accounts, payees[p]), "the escrow paid someone who is no filler, offerer or fee recipient");
      }
      uint256[] memory paid = token.paidOutTo(accounts);
      uint256[] memory earned = handler.entitledOf(address(token), accounts);
      for (uint256 a = 0; a < accounts.length; ++a) {
        uint256 received = paid[a] + escrow.owed(address(token), accounts[a]);
        if (received != earned[a]) {
          _eq(received, earned[a], string.concat(token.name(), ": paid + owed vs earned of ", vm.toString(accounts[a])));
        }
      }
    }
  }

  /// @notice A fill made by fillDeadline whose true proof reached the escrow while the deposit was Active (in a
  /// delivery with enough gas, or one that succeeded) is Settled, whatever the token, the filler's or the fee
  /// recipient's state, so it can never be refunded.
  function invariant_provenFillNeverRefundable() public view {
    FerryEscrow escrow = handler.escrow();
    (bytes32[] memory hashes,,,, bool[] memory proven) = handler.ledger();
    for (uint256 i = 0; i < hashes.length; ++i) {
      if (proven[i]) _eq(escrow.orderStatus(hashes[i]), 2, "a proven fill's deposit is not Settled");
    }
  }

  /// @notice Every Settled deposit paid a nonzero filler its exclusivity allowed at the proof's fill time (by
  /// fillDeadline; the exclusive filler, or anyone for an open order or after exclusivityDeadline), and a deposit
  /// settled by a true proof paid its filler of record, whoever filled (FerryFill's fillerOf).
  function invariant_settledToAnAllowedFiller() public view {
    uint256 n = handler.orderCount();
    for (uint256 i = 0; i < n; ++i) {
      (
        uint8 status,
        address payee,
        uint256 fillTime,
        address exclusiveFiller,
        uint256 exclusivityDeadline,
        uint256 fillDeadline,
        bool byTrueProof,
        address fillerOfRecord
      ) = handler.settlementOf(i);
      if (status != 2) continue;
      _true(payee != address(0), "a deposit settled to the zero address");
      _true(fillTime <= fillDeadline, "a deposit settled on a late fill");
      _true(
        payee == exclusiveFiller || exclusiveFiller == address(0) || fillTime > exclusivityDeadline,
        "a deposit settled to someone else than its exclusive filler within the exclusivity"
      );
      if (byTrueProof) {
        _eq(payee, fillerOfRecord, "a true proof's settlement paid someone else than the filler of record");
      }
    }
  }

  /// @notice Every deposit can end: no accepted order has a refund time beyond uint256.
  function invariant_everyDepositCanBeRefunded() public view {
    _eq(handler.overflowingDeposits(), 0, "deposits whose fillDeadline + settleGrace overflows");
  }

  function _contains(address[] memory list, address who) internal pure returns (bool) {
    for (uint256 i = 0; i < list.length; ++i) {
      if (list[i] == who) return true;
    }
    return false;
  }

  /// @notice The handler's per-call checks: refunds only after fillDeadline + settleGrace and only to the offerer,
  /// settlements only with a true proof, never by a stranger.
  function invariant_noUnexpectedOutcome() public view {
    if (handler.violations() != 0) revert(handler.firstViolation());
  }
}
