// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {FerryEscrow} from "../FerryEscrow.sol";
import {FerryFill} from "../FerryFill.sol";
import {FillProof, Order} from "../lib/FerryOrder.sol";
import {ContractOfferer} from "./utils/ContractOfferer.sol";
import {EscrowFixture} from "./utils/EscrowFixture.sol";
import {FuzzToken} from "./utils/FuzzToken.sol";
import {vm} from "./utils/Vm.sol";

/// @notice Fuzz tests of a deposit (terms, permits, signatures of EOA and EIP-1271 offerers) and of its fill on the
/// output chain through FerryFill.
contract EscrowDepositFuzzTest is EscrowFixture {
  // ---------------------------------------------------------------- deposit

  function testFuzz_depositLocksExactlyTheInput(
    uint256 amount,
    uint256 fee,
    uint256 fillIn,
    uint256 nonce,
    address caller
  ) public {
    Order memory o = _fundedOrder(amount, fee, fillIn, nonce);
    bytes memory signature = _sign(escrow, OFFERER_KEY, o);
    // Anyone may submit the offerer's signed order.
    vm.prank(caller);
    bytes32 orderHash = escrow.deposit(o, signature);
    _eq(orderHash, escrow.hashOrder(o), "orderHash");
    _eq(escrow.orderStatus(orderHash), 1, "status Active");
    _eq(token.balanceOf(address(escrow)), o.inputAmount, "escrow balance");
    _eq(token.balanceOf(offerer), 0, "offerer balance");
    // The same signed order never deposits twice.
    token.mint(offerer, o.inputAmount);
    vm.prank(offerer);
    token.approve(address(escrow), o.inputAmount);
    vm.expectRevert(FerryEscrow.OrderExists.selector);
    escrow.deposit(o, signature);
  }

  function testFuzz_depositRefusesInvalidTerms(uint256 amount, uint256 fee, uint256 which, uint256 delta) public {
    Order memory o = _fundedOrder(amount, fee, 1 days, 1);
    which = _bound(which, 0, 5);
    bytes4 expected = FerryEscrow.InvalidOrder.selector;
    if (which == 0) {
      o.inputAmount = 0;
    } else if (which == 1) {
      o.protocolFee = o.inputAmount + _bound(delta, 1, 1e30);
    } else if (which == 2) {
      o.filler = address(0);
    } else if (which == 3) {
      o.fillDeadline = o.openDeadline - _bound(delta, 1, o.openDeadline);
    } else if (which == 4) {
      vm.warp(o.openDeadline + _bound(delta, 1, 365 days));
      expected = FerryEscrow.OrderExpired.selector;
    } else {
      o.inputChainId = block.chainid + _bound(delta, 1, 1e9);
      expected = FerryEscrow.WrongChain.selector;
    }
    bytes memory signature = _sign(escrow, OFFERER_KEY, o);
    vm.expectRevert(expected);
    escrow.deposit(o, signature);
  }

  /// @notice refund() must always be able to compute when it opens: an order whose fillDeadline + settleGrace
  /// overflows is refused at deposit (otherwise its input could only ever leave by a settlement).
  function testFuzz_depositRefusesOverflowingRefundTime(uint256 fillDeadline) public {
    Order memory o = _fundedOrder(1e6, 0, 0, 1);
    o.fillDeadline = _bound(fillDeadline, type(uint256).max - GRACE + 1, type(uint256).max);
    bytes memory signature = _sign(escrow, OFFERER_KEY, o);
    vm.expectRevert(FerryEscrow.InvalidOrder.selector);
    escrow.deposit(o, signature);
  }

  function testFuzz_depositWithPermitNeedsNoApproval(uint256 amount, bool frontRun) public {
    amount = _bound(amount, 1, 1e30);
    Order memory o = _order(offerer, address(token), FILLER, amount, 0, 1 days, 7);
    token.mint(offerer, amount);
    uint256 permitDeadline = block.timestamp + 1 hours;
    (uint8 v, bytes32 r, bytes32 s) =
      vm.sign(OFFERER_KEY, token.permitDigest(offerer, address(escrow), amount, 0, permitDeadline));
    // Someone who saw the permit in the mempool spends it first: the deposit still goes through.
    if (frontRun) token.permit(offerer, address(escrow), amount, permitDeadline, v, r, s);
    bytes32 orderHash = escrow.depositWithPermit(o, _sign(escrow, OFFERER_KEY, o), permitDeadline, v, r, s);
    _eq(escrow.orderStatus(orderHash), 1, "status Active");
    _eq(token.balanceOf(address(escrow)), amount, "escrow balance");
  }

  // ---------------------------------------------------------------- signatures

  /// @notice A valid signature by any key but the offerer's is refused, and so is the offerer's own signature
  /// of another order.
  function testFuzz_signatureByAnotherKeyRefused(uint256 otherKey, uint256 otherNonce) public {
    otherKey = _bound(otherKey, 1, 115792089237316195423570985008687907852837564279074904382605163141518161494336);
    vm.assume(otherKey != OFFERER_KEY);
    Order memory o = _fundedOrder(1e6, 0, 1 days, 1);
    bytes memory byOther = _sign(escrow, otherKey, o);
    vm.expectRevert(FerryEscrow.WrongSigner.selector);
    escrow.deposit(o, byOther);

    vm.assume(otherNonce != 1);
    bytes memory ofOtherOrder =
      _sign(escrow, OFFERER_KEY, _order(offerer, address(token), FILLER, 1e6, 0, 1 days, otherNonce));
    vm.expectRevert(FerryEscrow.WrongSigner.selector);
    escrow.deposit(o, ofOtherOrder);
  }

  /// @notice An EIP-1271 offerer's order needs its owner's key: any other key's signature is refused.
  function testFuzz_contractOffererRefusesOtherKeys(uint256 ownerKey, uint256 otherKey) public {
    uint256 n = 115792089237316195423570985008687907852837564279074904382605163141518161494336;
    ownerKey = _bound(ownerKey, 1, n);
    otherKey = _bound(otherKey, 1, n);
    vm.assume(ownerKey != otherKey);
    ContractOfferer wallet = new ContractOfferer(vm.addr(ownerKey));
    Order memory o = _order(address(wallet), address(token), FILLER, 1e6, 0, 1 days, 1);
    token.mint(address(wallet), 1e6);
    vm.prank(address(wallet));
    token.approve(address(escrow), 1e6);

    bytes memory byOther = _sign(escrow, otherKey, o);
    vm.expectRevert(FerryEscrow.WrongSigner.selector);
    escrow.deposit(o, byOther);
    bytes32 orderHash = escrow.deposit(o, _sign(escrow, ownerKey, o));
    _eq(escrow.orderStatus(orderHash), 1, "owner's signature deposits");
  }

  /// @notice Arbitrary bytes never authorise a deposit, for an EOA or a contract offerer.
  function testFuzz_garbageSignatureRefused(bytes memory signature, bool contractOfferer) public {
    address who = contractOfferer ? address(new ContractOfferer(vm.addr(OFFERER_KEY))) : offerer;
    Order memory o = _order(who, address(token), FILLER, 1e6, 0, 1 days, 1);
    token.mint(who, 1e6);
    vm.prank(who);
    token.approve(address(escrow), 1e6);
    vm.expectRevert(FerryEscrow.WrongSigner.selector);
    escrow.deposit(o, signature);
  }

  // ---------------------------------------------------------------- fill

  /// @notice Only the order's filler fills, by fillDeadline, once, paying the recipient exactly outputAmount.
  function testFuzz_fillOnlyFillerByDeadlineOnce(uint256 outputAmount, uint256 when, address caller) public {
    Order memory o = _order(offerer, address(token), FILLER, 1e6, 0, 1 days, 1);
    o.outputToken = address(outputToken);
    o.outputAmount = _bound(outputAmount, 1, 1e30);
    outputToken.mint(FILLER, o.outputAmount);
    vm.prank(FILLER);
    outputToken.approve(address(fillContract), type(uint256).max);
    vm.chainId(OUTPUT_CHAIN);
    vm.warp(_bound(when, block.timestamp, o.fillDeadline + 1 days));

    if (caller != FILLER) {
      vm.prank(caller);
      vm.expectRevert();
      fillContract.fill(o, address(escrow));
    }
    if (block.timestamp > o.fillDeadline) {
      vm.prank(FILLER);
      vm.expectRevert(FerryFill.FillDeadlinePassed.selector);
      fillContract.fill(o, address(escrow));
      return;
    }
    vm.prank(FILLER);
    bytes32 orderHash = fillContract.fill(o, address(escrow));
    _eq(fillContract.fillTimes(orderHash), block.timestamp, "fill time");
    _eq(outputToken.balanceOf(o.recipient), o.outputAmount, "recipient paid");
    vm.prank(FILLER);
    vm.expectRevert(FerryFill.AlreadyFilled.selector);
    fillContract.fill(o, address(escrow));
  }
}
