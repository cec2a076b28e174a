// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {FerryEscrow} from "../FerryEscrow.sol";
import {FerryFill} from "../FerryFill.sol";
import {FillProof, Order} from "../lib/FerryOrder.sol";
import {ContractOfferer} from "./utils/ContractOfferer.sol";
import {EscrowFixture} from "./utils/EscrowFixture.sol";
import {FuzzToken} from "./utils/FuzzToken.sol";
import {vm} from "./utils/Vm.sol";

/// @notice Fuzz tests of how a deposit ends: proofs delivered by the settler (true, wrong terms, late, unknown, by
/// a stranger, with little gas), refunds, and what the escrow owes when a token refuses a payout (owed, withdraw).
contract EscrowSettleFuzzTest is EscrowFixture {
  // ---------------------------------------------------------------- prove and settle

  /// @notice A true proof of a fill made by fillDeadline, delivered at any time while the deposit is Active (in
  /// particular during the grace), settles it: the filler gets input minus fee.
  function testFuzz_trueProofSettles(uint256 amount, uint256 fee, uint256 fillIn, uint256 fillAt, uint256 deliverAt)
    public
  {
    _useFeeBps(fee);
    Order memory o = _fundedOrder(amount, fillIn, 1);
    bytes32 orderHash = _deposit(o);
    uint256 fillTime = _bound(fillAt, block.timestamp, o.fillDeadline);
    vm.warp(_bound(deliverAt, fillTime, o.fillDeadline + GRACE));
    _settle(OUTPUT_CHAIN, FILLER, _proof(o, fillTime));
    _eq(escrow.orderStatus(orderHash), 2, "status Settled");
    _eq(token.balanceOf(FILLER), o.inputAmount - o.protocolFee, "filler paid");
    _eq(_feesPaidOrOwed(), o.protocolFee, "fee");
    _eq(token.balanceOf(address(escrow)), _owedInEscrow(), "escrow keeps only what it owes");
    // Settled for good: no second settlement, no refund.
    _settle(OUTPUT_CHAIN, FILLER, _proof(o, fillTime));
    _eq(token.balanceOf(FILLER), o.inputAmount - o.protocolFee, "paid once");
    vm.warp(o.fillDeadline + GRACE + 1);
    vm.expectRevert(FerryEscrow.NotActive.selector);
    escrow.refund(o);
  }

  /// @notice A proof that differs from the deposit in any term it pays out, in the exclusivity it states, or names
  /// another output chain is skipped: the deposit stays Active and nothing moves. (A proof naming another filler
  /// within the exclusivity is now WrongFiller: testFuzz_otherFillerWithinExclusivitySkipped.)
  function testFuzz_wrongTermsSkipped(uint256 amount, uint256 fee, uint256 which, uint256 delta) public {
    _useFeeBps(fee);
    Order memory o = _fundedOrder(amount, 1 days, 1);
    bytes32 orderHash = _deposit(o);
    FillProof memory proof = _proof(o, block.timestamp);
    uint256 outputChainId = OUTPUT_CHAIN;
    address filler = FILLER;
    delta = _bound(delta, 1, type(uint128).max);
    which = _bound(which, 0, 6);
    if (which == 0) proof.inputToken = address(uint160(proof.inputToken) ^ uint160(delta));
    else if (which == 1) proof.inputAmount += delta;
    else if (which == 2) proof.protocolFee += delta;
    else if (which == 3) proof.fillDeadline += delta;
    else if (which == 4) outputChainId += delta;
    else if (which == 5) proof.exclusiveFiller = address(uint160(proof.exclusiveFiller) ^ uint160(delta));
    else proof.exclusivityDeadline ^= delta;
    vm.recordLogs();
    _settle(outputChainId, filler, proof);
    _eq(_skipReason(orderHash), uint256(FerryEscrow.SkipReason.WrongTerms), "skip reason");
    _eq(escrow.orderStatus(orderHash), 1, "still Active");
    _eq(token.balanceOf(address(escrow)), o.inputAmount, "nothing moved");
  }

  function testFuzz_lateFillSkipped(uint256 amount, uint256 late) public {
    Order memory o = _fundedOrder(amount, 1 days, 1);
    bytes32 orderHash = _deposit(o);
    vm.recordLogs();
    _settle(OUTPUT_CHAIN, FILLER, _proof(o, o.fillDeadline + _bound(late, 1, 365 days)));
    _eq(_skipReason(orderHash), uint256(FerryEscrow.SkipReason.LateFill), "skip reason");
    _eq(escrow.orderStatus(orderHash), 1, "still Active");
  }

  function testFuzz_proofOfUnknownOrderSkipped(bytes32 orderHash, uint256 amount) public {
    Order memory o = _fundedOrder(amount, 1 days, 1);
    bytes32 deposited = _deposit(o);
    vm.assume(orderHash != deposited);
    FillProof memory proof = _proof(o, block.timestamp);
    proof.orderHash = orderHash;
    vm.recordLogs();
    _settle(OUTPUT_CHAIN, FILLER, proof);
    _eq(_skipReason(orderHash), uint256(FerryEscrow.SkipReason.NotActive), "skip reason");
    _eq(escrow.orderStatus(deposited), 1, "deposit untouched");
  }

  function testFuzz_onlySettlerSettles(address caller) public {
    vm.assume(caller != address(this));
    Order memory o = _fundedOrder(1e6, 1 days, 1);
    _deposit(o);
    FillProof[] memory proofs = new FillProof[](1);
    proofs[0] = _proof(o, block.timestamp);
    vm.prank(caller);
    vm.expectRevert(FerryEscrow.NotSettler.selector);
    escrow.settleFills(OUTPUT_CHAIN, FILLER, proofs);
  }

  // ---------------------------------------------------------------- refund

  /// @notice refund() opens only after fillDeadline + settleGrace, returns the whole input to the offerer once, and
  /// whoever calls it.
  function testFuzz_refundOpensAfterGraceOnly(uint256 amount, uint256 fee, uint256 when, address caller) public {
    _useFeeBps(fee);
    Order memory o = _fundedOrder(amount, 1 days, 1);
    bytes32 orderHash = _deposit(o);
    uint256 opensAfter = o.fillDeadline + GRACE;
    vm.warp(_bound(when, block.timestamp, opensAfter + 365 days));
    vm.prank(caller);
    if (block.timestamp <= opensAfter) {
      vm.expectRevert(abi.encodeWithSelector(FerryEscrow.RefundNotOpen.selector, opensAfter));
      escrow.refund(o);
      return;
    }
    escrow.refund(o);
    _eq(escrow.orderStatus(orderHash), 3, "status Refunded");
    _eq(token.balanceOf(offerer), o.inputAmount, "offerer refunded in full");
    vm.expectRevert(FerryEscrow.NotActive.selector);
    escrow.refund(o);
    // A proof delivered after the refund settles nothing.
    _settle(OUTPUT_CHAIN, FILLER, _proof(o, o.fillDeadline));
    _eq(token.balanceOf(FILLER), 0, "no payment after a refund");
  }

  // ---------------------------------------------------------------- credits (owed, withdraw)

  /// @notice Fees accrue in the escrow whatever happens to the fee recipient, and anyone can have them paid to it
  /// (and only to it).
  function testFuzz_feesAccrueAndAnyoneWithdrawsThemToTheRecipient(uint256 a, uint256 b, address caller) public {
    vm.assume(caller != FEE_RECIPIENT);
    _useFeeBps(a >> 128);
    Order memory o1 = _fundedOrder(a, 1 days, 1);
    Order memory o2 = _fundedOrder(b, 1 days, 2);
    _deposit(o1);
    _deposit(o2);
    FillProof[] memory proofs = new FillProof[](2);
    proofs[0] = _proof(o1, block.timestamp);
    proofs[1] = _proof(o2, block.timestamp);
    escrow.settleFills(OUTPUT_CHAIN, FILLER, proofs);
    uint256 fees = o1.protocolFee + o2.protocolFee;
    _eq(_owed(FEE_RECIPIENT), fees, "fees owed");
    _eq(token.balanceOf(FEE_RECIPIENT), 0, "no fee transfer at settlement");
    _eq(token.balanceOf(FILLER), o1.inputAmount + o2.inputAmount - fees, "filler paid in one run");
    if (fees == 0) {
      vm.expectRevert(FerryEscrow.NothingOwed.selector);
      escrow.withdraw(address(token), FEE_RECIPIENT);
      return;
    }
    uint256 callerBefore = token.balanceOf(caller);
    vm.prank(caller);
    escrow.withdraw(address(token), FEE_RECIPIENT);
    _eq(token.balanceOf(FEE_RECIPIENT), fees, "fee recipient paid");
    _eq(token.balanceOf(caller), callerBefore, "caller got nothing");
    _eq(_owed(FEE_RECIPIENT), 0, "nothing owed after withdraw");
    _eq(token.balanceOf(address(escrow)), 0, "escrow empty");
  }

  /// @notice A proof delivered while the filler is blacklisted (or the fee recipient is) still settles the order:
  /// the payout is credited, the offerer can no longer refund, and once the filler is off the list anyone can have
  /// the credit paid to it.
  function testFuzz_blacklistedFillerIsCreditedAndPaidLater(
    uint256 amount,
    uint256 fee,
    bool feeRecipientListed,
    address caller
  ) public {
    vm.assume(caller != FILLER);
    token = new FuzzToken(FuzzToken.Kind.Blacklisting, "Blacklisting");
    _useFeeBps(fee);
    Order memory o = _fundedOrder(amount, 1 days, 1);
    bytes32 orderHash = _deposit(o);
    token.setBlacklisted(FILLER, true);
    if (feeRecipientListed) token.setBlacklisted(FEE_RECIPIENT, true);
    _settle(OUTPUT_CHAIN, FILLER, _proof(o, block.timestamp));
    _eq(escrow.orderStatus(orderHash), 2, "Settled despite the blacklist");
    uint256 payout = o.inputAmount - o.protocolFee;
    _eq(_owed(FILLER), payout, "payout credited");
    _eq(_owed(FEE_RECIPIENT), o.protocolFee, "fee accrued");
    vm.warp(o.fillDeadline + GRACE + 1);
    vm.expectRevert(FerryEscrow.NotActive.selector);
    escrow.refund(o);
    if (payout == 0) return;
    // While listed, a withdrawal reverts and keeps the credit.
    vm.expectRevert(abi.encodeWithSelector(FuzzToken.Blacklisted.selector, FILLER));
    escrow.withdraw(address(token), FILLER);
    _eq(_owed(FILLER), payout, "credit kept");
    token.setBlacklisted(FILLER, false);
    vm.prank(caller);
    escrow.withdraw(address(token), FILLER);
    _eq(token.balanceOf(FILLER), payout, "filler paid");
    _eq(_owed(FILLER), 0, "credit spent");
    vm.expectRevert(FerryEscrow.NothingOwed.selector);
    escrow.withdraw(address(token), FILLER);
  }

  /// @notice A token paused across fillDeadline + settleGrace: a proof delivered at any time within the grace
  /// settles (credited), so the refund that opens while the token is still paused finds the order Settled; a refund
  /// of an unproven order while paused is credited to the offerer instead.
  function testFuzz_tokenPausedAcrossTheGrace(
    uint256 amount,
    uint256 fillAt,
    uint256 deliverAt,
    uint256 refundAt,
    bool proven
  ) public {
    token = new FuzzToken(FuzzToken.Kind.Pausing, "Pausing");
    _useFeeBps(amount >> 128);
    Order memory o = _fundedOrder(amount, 1 days, 1);
    bytes32 orderHash = _deposit(o);
    token.setPaused(true);
    uint256 fillTime = _bound(fillAt, block.timestamp, o.fillDeadline);
    if (proven) {
      vm.warp(_bound(deliverAt, fillTime, o.fillDeadline + GRACE));
      _settle(OUTPUT_CHAIN, FILLER, _proof(o, fillTime));
      _eq(escrow.orderStatus(orderHash), 2, "Settled while paused");
    }
    vm.warp(_bound(refundAt, o.fillDeadline + GRACE + 1, o.fillDeadline + GRACE + 30 days));
    if (proven) {
      vm.expectRevert(FerryEscrow.NotActive.selector);
      escrow.refund(o);
    } else {
      escrow.refund(o);
      _eq(escrow.orderStatus(orderHash), 3, "Refunded while paused");
      _eq(escrow.owed(address(token), offerer), o.inputAmount, "refund credited");
    }
    token.setPaused(false);
    address payee = proven ? FILLER : offerer;
    uint256 due = proven ? o.inputAmount - o.protocolFee : o.inputAmount;
    if (due != 0) escrow.withdraw(address(token), payee);
    _eq(token.balanceOf(payee), due, "paid after the pause");
    _eq(token.balanceOf(address(escrow)), _owed(FEE_RECIPIENT), "escrow keeps only the fee");
  }

  /// @notice Whoever executes a verified LayerZero message picks its gas. A delivery either reverts as a whole
  /// (the order stays Active, the message deliverable again) or settles with the filler paid or credited: a payout
  /// that runs out of gas inside the token is never lost.
  function testFuzz_starvedDeliveryNeverLosesThePayout(uint256 amount, uint256 fee, uint256 gas) public {
    _useFeeBps(fee);
    Order memory o = _fundedOrder(amount, 1 days, 1);
    bytes32 orderHash = _deposit(o);
    FillProof[] memory proofs = new FillProof[](1);
    proofs[0] = _proof(o, block.timestamp);
    try escrow.settleFills{gas: _bound(gas, 20_000, 120_000)}(OUTPUT_CHAIN, FILLER, proofs) {
      _eq(escrow.orderStatus(orderHash), 2, "Settled");
      _eq(token.balanceOf(FILLER) + _owed(FILLER), o.inputAmount - o.protocolFee, "filler paid or credited");
      _eq(_owed(FEE_RECIPIENT), o.protocolFee, "fee accrued");
    } catch {
      _eq(escrow.orderStatus(orderHash), 1, "still Active after a reverted delivery");
    }
    _eq(
      token.balanceOf(address(escrow)),
      _owedInEscrow() + (escrow.orderStatus(orderHash) == 1 ? o.inputAmount : 0),
      "books"
    );
  }

  // ---------------------------------------------------------------- exclusivity and the filler of record

  /// @notice End to end: whoever FerryFill records as the filler of record (the exclusive filler within its
  /// exclusivity, anyone after it, anyone at all for a zero-filler order) is the one a true proof names and the
  /// escrow pays input minus fee; the exclusive filler gets nothing when someone else filled.
  function testFuzz_escrowPaysTheFillerOfRecord(
    uint256 amount,
    uint256 bps,
    uint256 exclusiveFor,
    uint256 fillAt,
    address caller,
    bool openFromStart
  ) public {
    vm.assume(caller != address(0) && caller != address(vm) && caller != address(escrow));
    vm.assume(caller != FEE_RECIPIENT && caller != offerer && caller != address(0xBEEF));
    _useFeeBps(bps);
    Order memory o = _fundedOrder(amount, 1 days, 1);
    o.outputToken = address(outputToken);
    o.outputAmount = 1e6;
    if (openFromStart) o.filler = address(0);
    o.exclusivityDeadline = _bound(exclusiveFor, 0, o.fillDeadline);
    bytes32 orderHash = _deposit(o);
    vm.warp(_bound(fillAt, block.timestamp, o.fillDeadline));
    // Within the exclusivity of an exclusive order only FILLER may fill; otherwise `caller` does.
    address expected = !openFromStart && block.timestamp <= o.exclusivityDeadline ? FILLER : caller;
    _fillAs(expected, o);
    _eq(fillContract.fillerOf(orderHash), expected, "filler of record");
    // What FerryApp proves: the recorded filler and fill time.
    vm.warp(_bound(fillAt >> 32, block.timestamp, o.fillDeadline + GRACE));
    _settle(OUTPUT_CHAIN, fillContract.fillerOf(orderHash), _proof(o, fillContract.fillTimes(orderHash)));
    _eq(escrow.orderStatus(orderHash), 2, "Settled");
    _eq(token.balanceOf(expected), o.inputAmount - o.protocolFee, "filler of record paid");
    if (expected != FILLER) _eq(token.balanceOf(FILLER), 0, "the exclusive filler did not fill, gets nothing");
    _eq(_owed(FEE_RECIPIENT), o.protocolFee, "fee accrued");
  }

  /// @notice A proof naming a filler other than the exclusive one, for a fill within the exclusivity, is skipped
  /// (WrongFiller), and so is any proof naming the zero address; after the exclusivity the same filler's proof
  /// settles and pays it.
  function testFuzz_otherFillerWithinExclusivitySkipped(
    uint256 amount,
    uint256 exclusiveFor,
    uint256 fillAt,
    address other
  ) public {
    vm.assume(other != FILLER && other != address(0) && other != address(escrow) && other != FEE_RECIPIENT);
    vm.assume(other != offerer);
    Order memory o = _fundedOrder(amount, 1 days, 1);
    o.exclusivityDeadline = _bound(exclusiveFor, block.timestamp, o.fillDeadline - 1);
    bytes32 orderHash = _deposit(o);
    uint256 fillTime = _bound(fillAt, block.timestamp, o.exclusivityDeadline);
    vm.recordLogs();
    _settle(OUTPUT_CHAIN, other, _proof(o, fillTime));
    _eq(_skipReason(orderHash), uint256(FerryEscrow.SkipReason.WrongFiller), "other filler within exclusivity");
    vm.recordLogs();
    _settle(OUTPUT_CHAIN, address(0), _proof(o, _bound(fillAt >> 64, block.timestamp, o.fillDeadline)));
    _eq(_skipReason(orderHash), uint256(FerryEscrow.SkipReason.WrongFiller), "zero filler");
    _eq(escrow.orderStatus(orderHash), 1, "still Active");
    _eq(token.balanceOf(address(escrow)), o.inputAmount, "nothing moved");

    _settle(OUTPUT_CHAIN, other, _proof(o, _bound(fillAt >> 128, o.exclusivityDeadline + 1, o.fillDeadline)));
    _eq(escrow.orderStatus(orderHash), 2, "Settled after the exclusivity");
    _eq(token.balanceOf(other), o.inputAmount - o.protocolFee, "other filler paid");
    _eq(token.balanceOf(FILLER), 0, "exclusive filler not paid");
  }

  /// @notice A proof that escapes the exclusivity by restating it (the order as open from the start, another
  /// exclusive filler, an earlier exclusivityDeadline) no longer matches the deposit's commitment: WrongTerms.
  function testFuzz_changedExclusivitySkippedWrongTerms(uint256 which, uint256 earlier, address other) public {
    vm.assume(other != FILLER && other != address(0));
    Order memory o = _fundedOrder(1e6, 1 days, 1);
    bytes32 orderHash = _deposit(o);
    FillProof memory proof = _proof(o, block.timestamp);
    which = _bound(which, 0, 2);
    if (which == 0) proof.exclusiveFiller = address(0);
    else if (which == 1) proof.exclusiveFiller = other;
    else proof.exclusivityDeadline = _bound(earlier, 0, block.timestamp - 1);
    vm.recordLogs();
    _settle(OUTPUT_CHAIN, other, proof);
    _eq(_skipReason(orderHash), uint256(FerryEscrow.SkipReason.WrongTerms), "skip reason");
    _eq(escrow.orderStatus(orderHash), 1, "still Active");
    _eq(token.balanceOf(other), 0, "nothing paid");
  }
}
