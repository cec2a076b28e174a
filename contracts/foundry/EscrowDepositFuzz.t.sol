// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {FerryEscrow} from "../FerryEscrow.sol";
import {FerryApp} from "../FerryApp.sol";
import {FerryFill} from "../FerryFill.sol";
import {FillProof, Order} from "../lib/FerryOrder.sol";
import {ContractOfferer} from "./utils/ContractOfferer.sol";
import {EscrowFixture} from "./utils/EscrowFixture.sol";
import {FuzzToken} from "./utils/FuzzToken.sol";
import {StubEndpoint} from "./utils/StubEndpoint.sol";
import {
  FillInstruction,
  GaslessCrossChainOrder,
  IOriginSettler,
  OnchainCrossChainOrder,
  Output,
  ResolvedCrossChainOrder
} from "../interfaces/IERC7683.sol";
import {Vm, vm} from "./utils/Vm.sol";

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
    _useFeeBps(fee);
    Order memory o = _fundedOrder(amount, fillIn, nonce);
    bytes memory signature = _sign(escrow, OFFERER_KEY, o);
    // Anyone may submit the offerer's signed order; every deposit emits ERC-7683's Open with the resolved order.
    vm.recordLogs();
    vm.prank(caller);
    bytes32 orderHash = escrow.deposit(o, signature);
    _openEventMatches(vm.getRecordedLogs(), orderHash, escrow.resolve(_onchain(o)));
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

  /// @notice Invalid terms are refused: no input, a fee above the input (WrongFee: not the escrow's bps), a fill
  /// deadline past 32 bits, a fill window closing before the open deadline, an expired order, another input chain.
  /// (A zero filler is no longer invalid: the order is open from the start, see
  /// testFuzz_zeroFillerOrderFillableByAnyone.)
  function testFuzz_depositRefusesInvalidTerms(uint256 amount, uint256 fee, uint256 which, uint256 delta) public {
    _useFeeBps(fee);
    Order memory o = _fundedOrder(amount, 1 days, 1);
    which = _bound(which, 0, 5);
    bytes memory expected = abi.encodeWithSelector(FerryEscrow.InvalidOrder.selector);
    if (which == 0) {
      o.inputAmount = 0;
    } else if (which == 1) {
      o.protocolFee = o.inputAmount + _bound(delta, 1, 1e30);
      expected = abi.encodeWithSelector(FerryEscrow.WrongFee.selector, _fee(o.inputAmount));
    } else if (which == 2) {
      o.fillDeadline = _bound(delta, uint256(type(uint32).max) + 1, type(uint256).max - GRACE);
    } else if (which == 3) {
      o.fillDeadline = o.openDeadline - _bound(delta, 1, o.openDeadline);
    } else if (which == 4) {
      vm.warp(o.openDeadline + _bound(delta, 1, 365 days));
      expected = abi.encodeWithSelector(FerryEscrow.OrderExpired.selector);
    } else {
      o.inputChainId = block.chainid + _bound(delta, 1, 1e9);
      expected = abi.encodeWithSelector(FerryEscrow.WrongChain.selector);
    }
    bytes memory signature = _sign(escrow, OFFERER_KEY, o);
    vm.expectRevert(expected);
    escrow.deposit(o, signature);
  }

  /// @notice refund() must always be able to compute when it opens: an order whose fillDeadline + settleGrace
  /// overflows is refused at deposit (otherwise its input could only ever leave by a settlement).
  function testFuzz_depositRefusesOverflowingRefundTime(uint256 fillDeadline) public {
    Order memory o = _fundedOrder(1e6, 0, 1);
    o.fillDeadline = _bound(fillDeadline, type(uint256).max - GRACE + 1, type(uint256).max);
    bytes memory signature = _sign(escrow, OFFERER_KEY, o);
    vm.expectRevert(FerryEscrow.InvalidOrder.selector);
    escrow.deposit(o, signature);
  }

  function testFuzz_depositWithPermitNeedsNoApproval(uint256 amount, bool frontRun) public {
    amount = _bound(amount, 1, 1e30);
    Order memory o = _order(offerer, address(token), FILLER, amount, _fee(amount), 1 days, 7);
    token.mint(offerer, amount);
    uint256 permitDeadline = block.timestamp + 1 hours;
    (uint8 v, bytes32 r, bytes32 s) =
      vm.sign(OFFERER_KEY, token.permitDigest(offerer, address(escrow), amount, 0, permitDeadline));
    // Someone who saw the permit in the mempool spends it first: the deposit still goes through.
    if (frontRun) token.permit(offerer, address(escrow), amount, permitDeadline, v, r, s);
    bytes memory signature = _sign(escrow, OFFERER_KEY, o);
    vm.recordLogs();
    bytes32 orderHash = escrow.depositWithPermit(o, signature, permitDeadline, v, r, s);
    _openEventMatches(vm.getRecordedLogs(), orderHash, escrow.resolve(_onchain(o)));
    _eq(escrow.orderStatus(orderHash), 1, "status Active");
    _eq(token.balanceOf(address(escrow)), amount, "escrow balance");
  }

  // ---------------------------------------------------------------- signatures

  /// @notice A valid signature by any key but the offerer's is refused, and so is the offerer's own signature
  /// of another order.
  function testFuzz_signatureByAnotherKeyRefused(uint256 otherKey, uint256 otherNonce) public {
    otherKey = _bound(otherKey, 1, 115792089237316195423570985008687907852837564279074904382605163141518161494336);
    vm.assume(otherKey != OFFERER_KEY);
    Order memory o = _fundedOrder(1e6, 1 days, 1);
    bytes memory byOther = _sign(escrow, otherKey, o);
    vm.expectRevert(FerryEscrow.WrongSigner.selector);
    escrow.deposit(o, byOther);

    vm.assume(otherNonce != 1);
    bytes memory ofOtherOrder =
      _sign(escrow, OFFERER_KEY, _order(offerer, address(token), FILLER, 1e6, _fee(1e6), 1 days, otherNonce));
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
    Order memory o = _order(address(wallet), address(token), FILLER, 1e6, _fee(1e6), 1 days, 1);
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
    Order memory o = _order(who, address(token), FILLER, 1e6, _fee(1e6), 1 days, 1);
    token.mint(who, 1e6);
    vm.prank(who);
    token.approve(address(escrow), 1e6);
    vm.expectRevert(FerryEscrow.WrongSigner.selector);
    escrow.deposit(o, signature);
  }

  // ---------------------------------------------------------------- fill

  /// @notice Only the order's filler fills, by fillDeadline, once, paying the recipient exactly outputAmount.
  function testFuzz_fillOnlyFillerByDeadlineOnce(uint256 outputAmount, uint256 when, address caller) public {
    Order memory o = _order(offerer, address(token), FILLER, 1e6, _fee(1e6), 1 days, 1);
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

  /// @notice Before its exclusivityDeadline an order is its filler's alone: anyone else's fill reverts NotFiller.
  function testFuzz_fillByOtherWithinExclusivityRevertsNotFiller(uint256 exclusiveFor, uint256 when, address caller)
    public
  {
    vm.assume(caller != FILLER && caller != address(0));
    Order memory o = _order(offerer, address(token), FILLER, 1e6, _fee(1e6), 1 days, 1);
    o.outputToken = address(outputToken);
    o.exclusivityDeadline = _bound(exclusiveFor, block.timestamp, o.fillDeadline + 1 days);
    vm.warp(_bound(when, block.timestamp, _min(o.exclusivityDeadline, o.fillDeadline)));
    outputToken.mint(caller, o.outputAmount);
    vm.prank(caller);
    outputToken.approve(address(fillContract), o.outputAmount);
    vm.chainId(OUTPUT_CHAIN);
    vm.prank(caller);
    vm.expectRevert(FerryFill.NotFiller.selector);
    fillContract.fill(o, address(escrow));
    // The filler itself still may.
    bytes32 orderHash = _fillAs(FILLER, o);
    _eq(fillContract.fillerOf(orderHash), FILLER, "filler of record");
  }

  /// @notice After exclusivityDeadline (and by fillDeadline) any address fills, once, and becomes the filler of
  /// record; the exclusive filler then finds it AlreadyFilled.
  function testFuzz_anyoneFillsAfterExclusivity(uint256 exclusiveFor, uint256 when, address caller) public {
    vm.assume(caller != address(0) && caller != address(0xBEEF) && caller != address(vm));
    Order memory o = _order(offerer, address(token), FILLER, 1e6, _fee(1e6), 1 days, 1);
    o.outputToken = address(outputToken);
    o.outputAmount = 1e6;
    o.exclusivityDeadline = _bound(exclusiveFor, 0, o.fillDeadline - 1);
    vm.warp(_bound(when, _max(block.timestamp, o.exclusivityDeadline + 1), o.fillDeadline));
    bytes32 orderHash = _fillAs(caller, o);
    _eq(orderHash, escrow.hashOrder(o), "orderHash");
    _eq(fillContract.fillerOf(orderHash), caller, "filler of record");
    _eq(fillContract.fillTimes(orderHash), block.timestamp, "fill time");
    _eq(outputToken.balanceOf(o.recipient), o.outputAmount, "recipient paid");
    outputToken.mint(FILLER, o.outputAmount);
    vm.prank(FILLER);
    outputToken.approve(address(fillContract), o.outputAmount);
    vm.chainId(OUTPUT_CHAIN);
    vm.prank(FILLER);
    vm.expectRevert(FerryFill.AlreadyFilled.selector);
    fillContract.fill(o, address(escrow));
  }

  /// @notice An order with the zero address as filler is accepted by the escrow and open from the start: any address
  /// fills it at any time by fillDeadline, whatever its exclusivityDeadline says.
  function testFuzz_zeroFillerOrderFillableByAnyone(uint256 exclusivity, uint256 when, address caller) public {
    vm.assume(caller != address(0) && caller != address(0xBEEF) && caller != address(vm));
    Order memory o = _order(offerer, address(token), address(0), 1e6, _fee(1e6), 1 days, 1);
    o.outputToken = address(outputToken);
    o.exclusivityDeadline = exclusivity;
    _fund(o);
    _eq(escrow.orderStatus(_deposit(o)), 1, "a zero-filler order deposits");
    vm.warp(_bound(when, block.timestamp, o.fillDeadline));
    bytes32 orderHash = _fillAs(caller, o);
    _eq(fillContract.fillerOf(orderHash), caller, "filler of record");
  }

  // ---------------------------------------------------------------- fee rule

  /// @notice Every order's fee must be exactly the deployed bps of its input, rounded down: any other fee is
  /// WrongFee(expected), the right one deposits.
  function testFuzz_feeMustBeTheDeployedBps(uint256 bps, uint256 amount, uint256 fee) public {
    bps = _useFeeBps(bps);
    Order memory o = _fundedOrder(amount, 1 days, 1);
    uint256 expected = o.inputAmount * bps / 10_000;
    _eq(o.protocolFee, expected, "fixture fee");
    if (fee != expected) {
      Order memory wrong = abi.decode(abi.encode(o), (Order));
      wrong.protocolFee = fee;
      bytes memory signature = _sign(escrow, OFFERER_KEY, wrong);
      vm.expectRevert(abi.encodeWithSelector(FerryEscrow.WrongFee.selector, expected));
      escrow.deposit(wrong, signature);
    }
    bytes32 orderHash = _deposit(o);
    _eq(escrow.orderStatus(orderHash), 1, "right fee deposits");
  }

  /// @notice The constructor refuses a fee above 100% and a fee with no recipient; a zero fee needs no recipient.
  function testFuzz_constructorRefusesBadFeeConfig(uint256 bps, address recipient) public {
    if (bps > 10_000 || (bps != 0 && recipient == address(0))) {
      vm.expectRevert(FerryEscrow.InvalidOrder.selector);
      new FerryEscrow(address(this), GRACE, recipient, bps);
    } else {
      FerryEscrow e = new FerryEscrow(address(this), GRACE, recipient, bps);
      _eq(e.protocolFeeBps(), bps, "bps");
      _eq(e.feeRecipient(), recipient, "recipient");
    }
    vm.expectRevert(FerryEscrow.InvalidOrder.selector);
    new FerryEscrow(address(this), GRACE, address(0), _bound(bps, 1, 10_000));
    vm.expectRevert(FerryEscrow.InvalidOrder.selector);
    new FerryEscrow(address(this), GRACE, FEE_RECIPIENT, _bound(bps, 10_001, type(uint256).max));
    _eq(new FerryEscrow(address(this), GRACE, address(0), 0).protocolFeeBps(), 0, "zero fee, no recipient");
  }

  /// @notice A fill deadline of exactly 2^32 - 1 is still accepted (ERC-7683 states it as uint32).
  function testFuzz_depositAcceptsDeadlinesUpToUint32(uint256 fillDeadline) public {
    Order memory o = _fundedOrder(1e6, 0, 1);
    o.fillDeadline = _bound(fillDeadline, o.openDeadline, type(uint32).max);
    _eq(escrow.orderStatus(_deposit(o)), 1, "Active");
  }

  // ---------------------------------------------------------------- offerer's own deposit, ERC-7683 open

  /// @notice An offerer depositing its own order needs no signature; anyone else's empty signature is WrongSigner.
  function testFuzz_offererDepositsOwnOrderWithoutSignature(uint256 amount, address caller) public {
    vm.assume(caller != offerer);
    Order memory o = _fundedOrder(amount, 1 days, 1);
    vm.prank(caller);
    vm.expectRevert(FerryEscrow.WrongSigner.selector);
    escrow.deposit(o, "");
    vm.prank(offerer);
    bytes32 orderHash = escrow.deposit(o, "");
    _eq(escrow.orderStatus(orderHash), 1, "Active");
    _eq(token.balanceOf(address(escrow)), o.inputAmount, "escrow balance");
  }

  /// @notice open() by the offerer deposits with no signature and emits Deposited and the standard Open event with
  /// the order's resolved terms; open() by anyone else is WrongSigner.
  function testFuzz_openByOffererDepositsAndEmitsOpen(uint256 amount, uint256 fillIn, address caller) public {
    vm.assume(caller != offerer);
    Order memory o = _fundedOrder(amount, fillIn, 1);
    OnchainCrossChainOrder memory onchain = _onchain(o);
    vm.prank(caller);
    vm.expectRevert(FerryEscrow.WrongSigner.selector);
    escrow.open(onchain);

    ResolvedCrossChainOrder memory resolved = escrow.resolve(onchain);
    vm.recordLogs();
    vm.prank(offerer);
    escrow.open(onchain);
    bytes32 orderHash = escrow.hashOrder(o);
    _eq(escrow.orderStatus(orderHash), 1, "Active");
    _eq(token.balanceOf(address(escrow)), o.inputAmount, "escrow balance");
    _eq(token.balanceOf(offerer), 0, "offerer balance");
    _openEventMatches(vm.getRecordedLogs(), orderHash, resolved);
    vm.prank(offerer);
    vm.expectRevert(FerryEscrow.OrderExists.selector);
    escrow.open(onchain);
  }

  /// @notice open()/resolve() refuse orderData of another type or a fillDeadline that disagrees with the Ferry
  /// order (WrongOrderData), orderData that is not exactly one Order (InvalidOrderEncoding), native value, and an
  /// Order whose address words have bits above their 160 (which would hash to another orderHash).
  function testFuzz_openRefusesWrongOrderData(uint256 which, bytes32 otherType, uint32 otherDeadline, bytes memory junk)
    public
  {
    Order memory o = _fundedOrder(1e6, 1 days, 1);
    OnchainCrossChainOrder memory onchain = _onchain(o);
    which = _bound(which, 0, 4);
    bytes4 expected = FerryEscrow.WrongOrderData.selector;
    if (which == 0) {
      vm.assume(otherType != onchain.orderDataType);
      onchain.orderDataType = otherType;
    } else if (which == 1) {
      vm.assume(otherDeadline != onchain.fillDeadline);
      onchain.fillDeadline = otherDeadline;
    } else if (which == 2) {
      vm.assume(junk.length != 0x1c0);
      onchain.orderData = junk;
      expected = bytes4(keccak256("InvalidOrderEncoding()"));
    } else if (which == 4) {
      // Dirty the offerer, recipient, input token, output token or filler word.
      uint256[5] memory words = [uint256(0), 1, 2, 3, 8];
      uint256 offset = 0x20 + 0x20 * words[uint256(otherType) % 5];
      bytes memory data = onchain.orderData;
      uint256 high = uint256(_bound(uint256(otherType) >> 8, 1, type(uint96).max)) << 160;
      assembly ("memory-safe") {
        mstore(add(data, offset), or(mload(add(data, offset)), high))
      }
      vm.expectRevert();
      escrow.resolve(onchain);
      vm.prank(offerer);
      vm.expectRevert();
      escrow.open(onchain);
      _eq(token.balanceOf(address(escrow)), 0, "nothing deposited");
      return;
    } else {
      vm.deal(offerer, 1 ether);
      expected = FerryEscrow.NoValue.selector;
      vm.prank(offerer);
      vm.expectRevert(expected);
      escrow.open{value: 1}(onchain);
      return;
    }
    vm.expectRevert(expected);
    escrow.resolve(onchain);
    vm.prank(offerer);
    vm.expectRevert(expected);
    escrow.open(onchain);
  }

  /// @notice openFor() with the offerer's EIP-712 signature over the Ferry order deposits, whoever submits it, and
  /// emits Open; another key's signature is WrongSigner.
  function testFuzz_openForWithSignatureDeposits(uint256 amount, uint256 otherKey, address caller) public {
    otherKey = _bound(otherKey, 1, 115792089237316195423570985008687907852837564279074904382605163141518161494336);
    vm.assume(otherKey != OFFERER_KEY);
    Order memory o = _fundedOrder(amount, 1 days, 1);
    GaslessCrossChainOrder memory gasless = _gasless(o);
    bytes memory byOther = _sign(escrow, otherKey, o);
    vm.prank(caller);
    vm.expectRevert(FerryEscrow.WrongSigner.selector);
    escrow.openFor(gasless, byOther, "");

    ResolvedCrossChainOrder memory resolved = escrow.resolveFor(gasless, "");
    bytes memory signature = _sign(escrow, OFFERER_KEY, o);
    vm.recordLogs();
    vm.prank(caller);
    escrow.openFor(gasless, signature, hex"01");
    bytes32 orderHash = escrow.hashOrder(o);
    _eq(escrow.orderStatus(orderHash), 1, "Active");
    _eq(token.balanceOf(address(escrow)), o.inputAmount, "escrow balance");
    _openEventMatches(vm.getRecordedLogs(), orderHash, resolved);
  }

  /// @notice openFor()/resolveFor() refuse a gasless order any of whose fields disagrees with the Ferry order in
  /// orderData (or with this escrow): WrongOrderData.
  function testFuzz_openForRefusesMismatchedGaslessFields(uint256 which, uint256 delta) public {
    Order memory o = _fundedOrder(1e6, 1 days, 1);
    GaslessCrossChainOrder memory g = _gasless(o);
    delta = _bound(delta, 1, type(uint32).max);
    which = _bound(which, 0, 6);
    if (which == 0) g.originSettler = address(uint160(g.originSettler) ^ uint160(delta));
    else if (which == 1) g.user = address(uint160(g.user) ^ uint160(delta));
    else if (which == 2) g.nonce ^= delta;
    else if (which == 3) g.originChainId ^= delta;
    else if (which == 4) g.openDeadline ^= uint32(delta);
    else if (which == 5) g.fillDeadline ^= uint32(delta);
    else g.orderDataType ^= bytes32(delta);
    bytes memory signature = _sign(escrow, OFFERER_KEY, o);
    vm.expectRevert(FerryEscrow.WrongOrderData.selector);
    escrow.resolveFor(g, "");
    vm.expectRevert(FerryEscrow.WrongOrderData.selector);
    escrow.openFor(g, signature, "");
    _eq(escrow.orderStatus(escrow.hashOrder(o)), 0, "nothing deposited");
  }

  /// @notice resolve() states the order as the escrow's _resolve documents: the offerer spends nothing itself; the
  /// filler spends outputAmount of outputToken to the recipient on the output chain (maxSpent) and receives input
  /// minus fee here, named as the exclusive filler (minReceived); one fill instruction for the output chain, with the
  /// settler's destination (zero where it knows none) and originData = abi.encode(order, escrow). resolveFor agrees.
  function testFuzz_resolveStatesTheOrder(
    uint256 bps,
    uint256 amount,
    uint256 outputAmount,
    address filler,
    bool knownChain,
    uint256 exclusivity
  ) public {
    bps = _useFeeBps(bps);
    Order memory o = _fundedOrder(amount, 1 days, 1);
    o.filler = filler;
    o.outputAmount = outputAmount;
    o.exclusivityDeadline = exclusivity;
    if (!knownChain) o.outputChainId = 8453;
    ResolvedCrossChainOrder memory r = escrow.resolve(_onchain(o));
    bytes32 orderHash = escrow.hashOrder(o);
    _eq(r.user, o.offerer, "user");
    _eq(r.originChainId, block.chainid, "originChainId");
    _eq(r.openDeadline, o.openDeadline, "openDeadline");
    _eq(r.fillDeadline, o.fillDeadline, "fillDeadline");
    _eq(r.orderId, orderHash, "orderId");
    _eq(r.maxSpent.length, 1, "one maxSpent");
    _eq(r.maxSpent[0].token, _b32(o.outputToken), "maxSpent token");
    _eq(r.maxSpent[0].amount, o.outputAmount, "maxSpent amount");
    _eq(r.maxSpent[0].recipient, _b32(o.recipient), "maxSpent recipient");
    _eq(r.maxSpent[0].chainId, o.outputChainId, "maxSpent chain");
    _eq(r.minReceived.length, 1, "one minReceived");
    _eq(r.minReceived[0].token, _b32(o.inputToken), "minReceived token");
    _eq(r.minReceived[0].amount, o.inputAmount - o.inputAmount * bps / 10_000, "minReceived amount");
    _eq(r.minReceived[0].recipient, _b32(filler), "minReceived recipient");
    _eq(r.minReceived[0].chainId, block.chainid, "minReceived chain");
    _eq(r.fillInstructions.length, 1, "one fill instruction");
    _eq(r.fillInstructions[0].destinationChainId, o.outputChainId, "destination chain");
    _eq(r.fillInstructions[0].destinationSettler, knownChain ? DESTINATION_SETTLER : bytes32(0), "destination");
    _eq(keccak256(r.fillInstructions[0].originData), keccak256(abi.encode(o, address(escrow))), "originData");
    (Order memory back, address escrowBack) = abi.decode(r.fillInstructions[0].originData, (Order, address));
    _eq(escrow.hashOrder(back), orderHash, "originData's order");
    _eq(escrowBack, address(escrow), "originData's escrow");
    _eq(keccak256(abi.encode(escrow.resolveFor(_gasless(o), ""))), keccak256(abi.encode(r)), "resolveFor");
  }

  /// @notice ERC-7683 end to end with FerryApp as the escrow's settler: the Open/resolve fill instruction names the
  /// app's peer on the output chain, and FerryApp.fill(orderId, originData, "") with that instruction's originData
  /// fills the order (the caller becomes the filler of record, under the same exclusivity as FerryFill.fill);
  /// another orderId is WrongOrderId, native value without fillerData is NoValue.
  function testFuzz_destinationSettlerFillsTheResolvedOrder(
    address caller,
    uint256 exclusiveFor,
    uint256 fillAt,
    bytes32 otherId
  ) public {
    vm.assume(caller != address(0) && caller != address(0xBEEF) && caller != address(vm));
    FerryApp app = new FerryApp(address(new StubEndpoint()), address(this));
    app.setRoute(OUTPUT_CHAIN, 30_110);
    app.setPeer(30_110, _b32(address(app)));
    escrow = new FerryEscrow(address(app), GRACE, FEE_RECIPIENT, FEE_BPS);
    Order memory o = _fundedOrder(1e6, 1 days, 1);
    o.outputToken = address(outputToken);
    o.exclusivityDeadline = _bound(exclusiveFor, block.timestamp, o.fillDeadline);
    OnchainCrossChainOrder memory onchain = _onchain(o);
    vm.recordLogs();
    vm.prank(offerer);
    escrow.open(onchain);
    Vm.Log[] memory logs = vm.getRecordedLogs();
    ResolvedCrossChainOrder memory r = escrow.resolve(onchain);
    _openEventMatches(logs, r.orderId, r);
    _eq(r.fillInstructions[0].destinationSettler, _b32(address(app)), "destination settler is the app's peer");
    vm.assume(otherId != r.orderId);

    vm.chainId(OUTPUT_CHAIN);
    vm.warp(_bound(fillAt, block.timestamp, o.fillDeadline));
    address filler = block.timestamp <= o.exclusivityDeadline ? FILLER : caller;
    outputToken.mint(filler, o.outputAmount);
    vm.prank(filler);
    outputToken.approve(address(app), o.outputAmount);
    bytes memory originData = r.fillInstructions[0].originData;
    vm.prank(filler);
    vm.expectRevert(abi.encodeWithSelector(FerryApp.WrongOrderId.selector, r.orderId));
    app.fill(otherId, originData, "");
    vm.deal(filler, 1);
    vm.prank(filler);
    vm.expectRevert(FerryApp.NoValue.selector);
    app.fill{value: 1}(r.orderId, originData, "");
    if (filler != caller) {
      // Within the exclusivity nobody else fills through the ERC-7683 entry point either.
      vm.prank(caller);
      vm.expectRevert(FerryFill.NotFiller.selector);
      app.fill(r.orderId, originData, "");
    }
    vm.prank(filler);
    app.fill(r.orderId, originData, "");
    _eq(app.fillerOf(r.orderId), filler, "filler of record");
    _eq(app.fillTimes(r.orderId), block.timestamp, "fill time");
    _eq(outputToken.balanceOf(o.recipient), o.outputAmount, "recipient paid");
  }

  // ---------------------------------------------------------------- helpers

  function _openEventMatches(Vm.Log[] memory logs, bytes32 orderHash, ResolvedCrossChainOrder memory resolved)
    internal
    view
  {
    uint256 found;
    for (uint256 i = 0; i < logs.length; ++i) {
      if (logs[i].emitter != address(escrow) || logs[i].topics[0] != IOriginSettler.Open.selector) continue;
      ++found;
      _eq(logs[i].topics[1], orderHash, "Open orderId");
      _eq(keccak256(logs[i].data), keccak256(abi.encode(resolved)), "Open's resolved order is resolve()'s");
    }
    _eq(found, 1, "one Open event");
  }

  function _b32(address a) internal pure returns (bytes32) {
    return bytes32(uint256(uint160(a)));
  }

  function _min(uint256 a, uint256 b) internal pure returns (uint256) {
    return a < b ? a : b;
  }

  function _max(uint256 a, uint256 b) internal pure returns (uint256) {
    return a > b ? a : b;
  }
}
