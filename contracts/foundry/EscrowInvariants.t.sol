// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Order} from "../lib/FerryOrder.sol";
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
    uint256 n = handler.orderCount();
    for (uint256 i = 0; i < n; ++i) {
      bytes32 h = handler.orderHashes(i);
      uint256 status = handler.escrow().orderStatus(h);
      uint256 settled = handler.settledEvents(h);
      uint256 refunded = handler.refundedEvents(h);
      _true(settled + refunded <= 1, "a deposit ended twice");
      _true(status != 1 || settled + refunded == 0, "an Active deposit has an ending event");
      _true(status != 2 || (settled == 1 && refunded == 0), "a Settled deposit without exactly one Settled event");
      _true(status != 3 || (refunded == 1 && settled == 0), "a Refunded deposit without exactly one Refunded event");
      _eq(status, handler.ghostStatus(h), "status changed outside the handler's books");
    }
  }

  /// @notice The escrow holds, per token, exactly the inputs of its Active deposits plus what it owes (accrued fees
  /// and payouts whose transfer failed): nothing is lost, nothing is paid twice.
  function invariant_escrowBalanceIsActiveDepositsPlusOwed() public view {
    address escrow = address(handler.escrow());
    address[] memory accounts = handler.accounts();
    for (uint256 t = 0; t < 4; ++t) {
      FuzzToken token = handler.token(t);
      uint256 expected = 0;
      uint256 n = handler.orderCount();
      for (uint256 i = 0; i < n; ++i) {
        Order memory o = handler.orderAt(i);
        if (o.inputToken == address(token) && handler.escrow().orderStatus(handler.orderHashes(i)) == 1) {
          expected += o.inputAmount;
        }
      }
      for (uint256 a = 0; a < accounts.length; ++a) {
        expected += handler.escrow().owed(address(token), accounts[a]);
      }
      uint256 balance = token.balanceOf(escrow);
      if (balance != expected) _eq(balance, expected, string.concat(token.name(), ": escrow balance"));
    }
  }

  /// @notice Nobody but a deposit's committed filler, its offerer or the fee recipient ever receives tokens from
  /// the escrow, and each of them receives (or is owed) exactly what its settled or refunded orders give it.
  function invariant_onlyFillerOffererOrFeeRecipientPaid() public view {
    FerryEscrow escrow = handler.escrow();
    address[] memory accounts = handler.accounts();
    for (uint256 t = 0; t < 4; ++t) {
      FuzzToken token = handler.token(t);
      address[] memory payees = token.payeesOfWatched();
      for (uint256 p = 0; p < payees.length; ++p) {
        _true(handler.isAccount(payees[p]), "the escrow paid someone who is no filler, offerer or fee recipient");
      }
      for (uint256 a = 0; a < accounts.length; ++a) {
        address who = accounts[a];
        uint256 received = token.paidOut(who) + escrow.owed(address(token), who);
        uint256 earned = handler.entitled(address(token), who);
        if (received != earned) {
          _eq(received, earned, string.concat(token.name(), ": paid + owed vs earned of ", vm.toString(who)));
        }
      }
    }
  }

  /// @notice A fill made by fillDeadline whose true proof reached the escrow while the deposit was Active is
  /// Settled, so it can never be refunded (whatever the token, the filler's or the fee recipient's state).
  function invariant_provenFillNeverRefundable() public view {
    uint256 n = handler.orderCount();
    for (uint256 i = 0; i < n; ++i) {
      bytes32 h = handler.orderHashes(i);
      if (!handler.provenWhileActive(h)) continue;
      _eq(handler.escrow().orderStatus(h), 2, "a proven fill's deposit is not Settled");
    }
  }

  /// @notice Every deposit can end: no accepted order has a refund time beyond uint256.
  function invariant_everyDepositCanBeRefunded() public view {
    _eq(handler.overflowingDeposits(), 0, "deposits whose fillDeadline + settleGrace overflows");
  }

  /// @notice The handler's per-call checks: refunds only after fillDeadline + settleGrace and only to the offerer,
  /// settlements only with a true proof, never by a stranger.
  function invariant_noUnexpectedOutcome() public view {
    if (handler.violations() != 0) revert(handler.firstViolation());
  }
}
