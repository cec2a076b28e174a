// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {FerryOrder, FillProof, Order} from "../lib/FerryOrder.sol";
import {GaslessCrossChainOrder, IOriginSettler, OnchainCrossChainOrder} from "../interfaces/IERC7683.sol";
import {EscrowBooks} from "./utils/EscrowBooks.sol";
import {FuzzToken} from "./utils/FuzzToken.sol";
import {Vm, vm} from "./utils/Vm.sol";

/// @notice Drives one FerryEscrow through every external function in the order the invariant fuzzer picks: deposits
/// (approve or permit, signed or by the offerer itself, ERC-7683 open and openFor, EOA or EIP-1271 offerers, four
/// kinds of token, exclusive and open-from-start orders), fills on the output chain through FerryFill (by the
/// exclusive filler or anyone else; FerryFill must take exactly the allowed ones), proofs delivered as the escrow's
/// settler naming the filler of record (true, late, wrong-terms, forged, naming another filler, by a stranger),
/// refunds by anyone, withdrawals of what the escrow owes, token admin (blacklist, pause, transfer fee) and time. It
/// is the settler, so it sees every proof the escrow was given, and it keeps ghost books the invariants compare with
/// the chain.
contract EscrowHandler is EscrowBooks {
  bytes32 internal constant ORDER_TYPE = FerryOrder.ORDER_TYPEHASH;

  // ---------------------------------------------------------------- actions

  /// @dev Block time and chain id as this run left them (the fuzzer's calls do not carry them over themselves).
  modifier atCurrentTime() {
    vm.warp(currentTime);
    vm.chainId(inputChainId);
    _;
  }

  /// @notice Submits a new order by `mode` (of 12): deposit() signed, by `caller` (0-3); deposit() by the offerer
  /// itself with no signature (4); depositWithPermit() (5, 6: EOA offerers; in 6 someone spends the permit first);
  /// an order whose refund time would overflow (7, must be refused); ERC-7683 open() by the offerer (8) or by
  /// `caller` (9: refused unless it is the offerer); openFor() with the offerer's signature by `caller` (10); a fee
  /// other than the escrow's bps (11, must be refused).
  function deposit(
    uint256 offererSeed,
    uint256 tokenSeed,
    uint256 fillerSeed,
    uint256 amount,
    uint256 feeSeed,
    uint256 windows,
    uint256 mode,
    address caller
  ) external atCurrentTime {
    uint256 who = offererSeed % 4;
    mode %= 12;
    Order memory o = _newOrder(who, tokenSeed, fillerSeed, amount, windows);
    // Now and then an order whose refund time would overflow: the escrow must refuse it.
    if (mode == 7) o.fillDeadline = type(uint256).max - ((windows >> 64) % GRACE);
    if (mode == 11) o.protocolFee ^= 1 + feeSeed % 1000;
    FuzzToken(o.inputToken).mint(o.offerer, o.inputAmount);
    vm.recordLogs();
    bool accepted = _submit(o, who, mode, caller);
    Vm.Log[] memory logs = vm.getRecordedLogs();
    if (mode == 11) _expect(!accepted, "a deposit with a fee other than the escrow's bps was accepted");
    if (mode == 9 && caller != o.offerer) _expect(!accepted, "open() by someone other than the offerer deposited");
    if (!accepted) return;

    bytes32 orderHash = escrow.hashOrder(o);
    _expect(_opened(logs, orderHash), "a deposit without its ERC-7683 Open event");
    orders.push(o);
    orderHashes.push(orderHash);
    _expect(ghostStatus[orderHash] == 0, "a deposit reused an orderHash");
    ghostStatus[orderHash] = 1;
    if (mode == 8 || mode == 9) ++opens;
    if (mode == 10) ++openFors;
    unchecked {
      if (o.fillDeadline + GRACE < o.fillDeadline) ++overflowingDeposits;
    }
  }

  /// @dev A quarter of the orders are open from the start (zero filler); the others' exclusivity lapsed already
  /// (0), lasts the whole window (fillDeadline) or ends somewhere around it.
  function _newOrder(uint256 who, uint256 tokenSeed, uint256 fillerSeed, uint256 amount, uint256 windows)
    internal
    returns (Order memory o)
  {
    o.offerer = offerers[who];
    o.recipient = address(0xBEEF);
    o.inputToken = address(tokens[tokenSeed % N_TOKENS]);
    o.outputToken = address(outputToken);
    o.inputAmount = _bound(amount, 1, 1e15);
    o.outputAmount = o.inputAmount;
    o.inputChainId = inputChainId;
    o.outputChainId = outputChains[(fillerSeed >> 8) % 2];
    o.filler = (fillerSeed >> 16) % 4 == 0 ? address(0) : fillers[fillerSeed % 3];
    o.nonce = ++nonce;
    o.openDeadline = currentTime + (windows % 1 hours);
    o.fillDeadline = o.openDeadline + ((windows >> 32) % 2 hours);
    uint256 exclusivity = (fillerSeed >> 24) % 4;
    o.exclusivityDeadline =
      exclusivity == 0 ? 0 : exclusivity == 1 ? o.fillDeadline : o.openDeadline + (windows >> 96) % 2 hours;
    o.protocolFee = o.inputAmount * FEE_BPS / 10_000;
  }

  /// @dev Submits `o` as `mode` says (see deposit); whether the escrow accepted it.
  function _submit(Order memory o, uint256 who, uint256 mode, address caller) internal returns (bool) {
    FuzzToken input = FuzzToken(o.inputToken);
    bytes memory signature = _sign(escrow, offererKeys[who], o);
    if ((mode != 5 && mode != 6) || who == 3) {
      vm.prank(o.offerer);
      input.approve(address(escrow), o.inputAmount);
      if (mode == 4) {
        vm.prank(o.offerer);
        signature = "";
      } else if (mode == 8 || mode == 9) {
        vm.prank(mode == 8 ? o.offerer : caller);
        try escrow.open(OnchainCrossChainOrder(uint32(o.fillDeadline), ORDER_TYPE, abi.encode(o))) {
          return true;
        } catch {
          return false;
        }
      } else if (mode == 10) {
        vm.prank(caller);
        try escrow.openFor(_gasless(o), signature, "") {
          return true;
        } catch {
          return false;
        }
      } else {
        vm.prank(caller);
      }
      try escrow.deposit(o, signature) {
        return true;
      } catch {
        return false;
      }
    }
    bytes32 digest = input.permitDigest(o.offerer, address(escrow), o.inputAmount, input.nonces(o.offerer), currentTime);
    (uint8 v, bytes32 r, bytes32 s) = vm.sign(offererKeys[who], digest);
    if (mode == 6) input.permit(o.offerer, address(escrow), o.inputAmount, currentTime, v, r, s);
    vm.prank(caller);
    try escrow.depositWithPermit(o, signature, currentTime, v, r, s) {
      return true;
    } catch {
      return false;
    }
  }

  function _gasless(Order memory o) internal view returns (GaslessCrossChainOrder memory) {
    return GaslessCrossChainOrder(
      address(escrow),
      o.offerer,
      o.nonce,
      o.inputChainId,
      uint32(o.openDeadline),
      uint32(o.fillDeadline),
      ORDER_TYPE,
      abi.encode(o)
    );
  }

  /// @notice A filler pays the recipient on the output chain through FerryFill: mostly the order's exclusive filler,
  /// otherwise any of the three (for an open order always one of them). FerryFill must take exactly the fills the
  /// order allows: by fillDeadline, once, by the exclusive filler until exclusivityDeadline (anyone for an open
  /// order or after it); the one who filled becomes the filler of record.
  function fill(uint256 orderSeed, uint256 fillerSeed) external atCurrentTime {
    if (orders.length == 0) return;
    uint256 idx = orderSeed % orders.length;
    Order memory o = orders[idx];
    bytes32 h = orderHashes[idx];
    address filler = fillerSeed % 2 == 0 && o.filler != address(0) ? o.filler : fillers[(fillerSeed >> 8) % 3];
    bool allowed = currentTime <= o.fillDeadline && filledBy[h] == address(0)
      && (filler == o.filler || o.filler == address(0) || currentTime > o.exclusivityDeadline);
    outputToken.mint(filler, o.outputAmount);
    vm.prank(filler);
    outputToken.approve(address(fillContract), o.outputAmount);
    vm.chainId(o.outputChainId);
    vm.prank(filler);
    bool filled;
    try fillContract.fill(o, address(escrow)) {
      filled = true;
    } catch {}
    vm.chainId(inputChainId);
    if (filled != allowed) {
      _violation(filled ? "FerryFill took a fill the order does not allow" : "FerryFill refused an allowed fill");
    }
    vm.prank(filler);
    outputToken.approve(address(fillContract), 0);
    if (!filled) return;
    filledBy[h] = filler;
    if (filler != o.filler) ++fillsByOthers;
    _expect(fillContract.fillerOf(h) == filler, "FerryFill recorded another filler of record");
    _expect(fillContract.fillTimes(h) == currentTime, "FerryFill recorded another fill time");
  }

  /// @notice Delivers a batch of up to four proofs for one filler of record and output chain, each true (the fill
  /// FerryFill recorded, by whom it recorded), late, with wrong terms or forged; now and then for the wrong route or
  /// naming another filler, by a stranger, or with little gas.
  function prove(uint256 orderSeed, uint256 modes, uint256 count, address stranger) external atCurrentTime {
    if (orders.length == 0) return;
    Batch memory b = _batch(orderSeed % orders.length, modes, count);

    if (b.route == 2 && stranger != address(this)) {
      vm.prank(stranger);
      try escrow.settleFills(b.outputChainId, b.filler, b.proofs) {
        _violation("a stranger settled");
      } catch {}
      return;
    }

    // LayerZero's lzReceive is permissionless once a message is verified: whoever executes it picks the gas. A
    // starved delivery may revert as a whole (the message stays deliverable) or run out inside a token transfer,
    // which must then leave a credit, never a loss.
    bool starved = b.route == 3;
    uint256 n = b.hashes.length;
    bool[] memory wasActive = new bool[](n);
    for (uint256 i = 0; i < n; ++i) {
      wasActive[i] = escrow.orderStatus(b.hashes[i]) == 1;
      if (b.truthful[i] && wasActive[i] && !starved) provenWhileActive[b.hashes[i]] = true;
    }
    vm.recordLogs();
    try escrow.settleFills{gas: starved ? 30_000 + (count >> 16) % 300_000 : gasleft()}(
      b.outputChainId, b.filler, b.proofs
    ) {
      _countEndings(vm.getRecordedLogs());
      for (uint256 i = 0; i < n; ++i) {
        if (b.truthful[i] && wasActive[i]) provenWhileActive[b.hashes[i]] = true;
      }
    } catch {
      vm.getRecordedLogs();
    }
    _bookSettlements(b);
  }

  /// @dev Checks and books every status change the delivery of `b` made.
  function _bookSettlements(Batch memory b) internal {
    for (uint256 i = 0; i < b.hashes.length; ++i) {
      bytes32 h = b.hashes[i];
      uint8 status = escrow.orderStatus(h);
      if (status == ghostStatus[h]) continue;
      _expect(ghostStatus[h] == 1 && status == 2, "settleFills made a transition other than Active to Settled");
      // The escrow cannot tell which filler really filled (it trusts its settler for that), but it must hold any
      // proof to the deposited terms and exclusivity; a message naming another filler (route 1) is a forgery
      // FerryApp never sends.
      _expect(_anyOf(b.hashes, b.route == 1 ? b.admissible : b.truthful, h), "an order settled without a true proof");
      _expect(_anyOf(b.hashes, b.admissible, h), "an order settled against its terms or exclusivity");
      ghostStatus[h] = status;
      Order memory o = _orderOf(h);
      settledTo[h] = b.filler;
      settledFillTime[h] = _fillTimeOf(b, h);
      settledByTrueProof[h] = _anyOf(b.hashes, b.truthful, h);
      if (b.filler != o.filler) ++settlementsToOthers;
      // The books pay whoever the settlement named: the filler of record for a true proof.
      entitled[o.inputToken][b.filler] += o.inputAmount - o.protocolFee;
      entitled[o.inputToken][feeRecipient] += o.protocolFee;
    }
  }

  /// @notice Anyone refunds an order (now and then one with a field changed, which names no deposit).
  function refund(uint256 orderSeed, uint256 tamper, address caller) external atCurrentTime {
    if (orders.length == 0) return;
    Order memory o = orders[orderSeed % orders.length];
    bytes32 h = escrow.hashOrder(o);
    Order memory sent = o;
    if (tamper % 8 == 0) sent.offerer = caller;
    vm.recordLogs();
    vm.prank(caller);
    try escrow.refund(sent) {
      _countEndings(vm.getRecordedLogs());
    } catch {
      vm.getRecordedLogs();
    }
    uint8 status = escrow.orderStatus(h);
    if (status == ghostStatus[h]) return;
    _expect(ghostStatus[h] == 1 && status == 3, "refund made a transition other than Active to Refunded");
    _expect(sent.offerer == o.offerer, "a refund to someone else than the offerer");
    unchecked {
      _expect(currentTime > o.fillDeadline + GRACE, "a refund before fillDeadline + settleGrace");
    }
    ghostStatus[h] = status;
    entitled[o.inputToken][o.offerer] += o.inputAmount;
  }

  /// @notice Anyone asks the escrow to pay an account what it owes it in a token: mostly an account it owes
  /// something (found from the seeds on), otherwise any account or the caller itself.
  function withdraw(uint256 tokenSeed, uint256 accountSeed, address caller) external atCurrentTime {
    address[] memory list = accounts();
    address t = address(tokens[tokenSeed % N_TOKENS]);
    address account = accountSeed % 10 < 8 ? list[accountSeed % 8] : caller;
    if (tokenSeed % 4 != 0) {
      for (uint256 k = 0; k < N_TOKENS * list.length; ++k) {
        address tk = address(tokens[(tokenSeed % N_TOKENS + k / list.length) % N_TOKENS]);
        address who = list[(accountSeed % list.length + k) % list.length];
        if (escrow.owed(tk, who) != 0) {
          (t, account) = (tk, who);
          break;
        }
      }
    }
    vm.prank(caller);
    try escrow.withdraw(t, account) {} catch {}
  }

  function warp(uint256 seconds_) external {
    currentTime += seconds_ % 2 hours;
  }

  /// @notice The token issuers' levers: blacklist or clear an account (the escrow included), pause or unpause,
  /// switch the transfer fee on or off.
  function tokenAdmin(uint256 action, uint256 accountSeed, bool on) external atCurrentTime {
    action %= 3;
    if (action == 0) {
      address[] memory list = accounts();
      uint256 i = accountSeed % (list.length + 1);
      tokens[1].setBlacklisted(i == list.length ? address(escrow) : list[i], on);
    } else if (action == 1) {
      tokens[2].setPaused(on);
    } else {
      tokens[3].setFeeBps(on ? 1 + accountSeed % 1000 : 0);
    }
  }

  // ---------------------------------------------------------------- internals

  function _proof(Order memory o, bytes32 h, uint256 mode, uint256 seed)
    internal
    view
    returns (FillProof memory proof, bool truthful)
  {
    uint256 filledAt = fillContract.fillTimes(h);
    proof = FillProof(
      h, o.inputToken, o.inputAmount, o.protocolFee, o.fillDeadline, o.filler, o.exclusivityDeadline, filledAt
    );
    if (mode <= 1 && filledAt != 0) return (proof, true);
    if (mode <= 2 && o.fillDeadline < type(uint256).max) {
      // Late: the proof claims a fill after fillDeadline.
      proof.fillTime = o.fillDeadline + 1 + seed % _min(1 days, type(uint256).max - o.fillDeadline);
    } else if (mode == 3) {
      // Wrong terms: one term the escrow pays out, or the exclusivity, differs from the deposit's.
      uint256 which = seed % 6;
      if (which == 0) proof.inputAmount ^= 1 + (seed >> 8) % 1000;
      else if (which == 1) proof.protocolFee ^= 1 + (seed >> 8) % 1000;
      else if (which == 2) proof.fillDeadline ^= 1 + (seed >> 8) % 1000;
      else if (which == 3) proof.exclusiveFiller = proof.exclusiveFiller == address(0) ? fillers[0] : address(0);
      else if (which == 4) proof.exclusivityDeadline ^= 1 + (seed >> 8) % 1000;
      else proof.inputToken = address(tokens[(_tokenIndex(o.inputToken) + 1 + seed % 3) % N_TOKENS]);
      if (proof.fillTime == 0) proof.fillTime = o.fillDeadline;
    } else {
      // Forged: an orderHash no deposit has, with this order's terms.
      proof.orderHash = keccak256(abi.encode(h, seed));
      proof.fillTime = o.fillDeadline;
    }
  }

  /// @dev One delivery: up to four proofs for orders of the route of `first` (its filler of record and output
  /// chain), by `modes`; which are true (repeat FerryFill's record: its filler of record, on the order's route) and
  /// which the escrow may settle (see _admissible). Route 0 names another output chain, route 1 another filler.
  struct Batch {
    FillProof[] proofs;
    bytes32[] hashes;
    bool[] truthful;
    bool[] admissible;
    uint256 route;
    uint256 outputChainId;
    address filler;
  }

  function _batch(uint256 first, uint256 modes, uint256 count) internal view returns (Batch memory b) {
    uint256 n = 1 + count % 4;
    b.route = (count >> 8) % 16;
    b.outputChainId = b.route == 0 ? orders[first].outputChainId + 1 : orders[first].outputChainId;
    b.filler = b.route == 1 ? _otherFiller(_recordedFiller(first)) : _recordedFiller(first);
    (b.proofs, b.hashes, b.truthful, b.admissible) =
    (new FillProof[](n), new bytes32[](n), new bool[](n), new bool[](n));
    for (uint256 i = 0; i < n; ++i) {
      Order memory o = orders[_sameRoute(first, first + i * 7)];
      bytes32 h = escrow.hashOrder(o);
      b.hashes[i] = h;
      (b.proofs[i], b.truthful[i]) = _proof(o, h, (modes >> (8 * i)) % 5, modes >> (64 + 16 * i));
      b.truthful[i] = b.truthful[i] && b.route > 1 && b.filler == fillContract.fillerOf(h);
      b.admissible[i] = _admissible(o, b.proofs[i], b.outputChainId, b.filler);
    }
  }

  /// @dev Whether the escrow may settle `o` on `proof`, delivered for `filler` from `outputChainId`: the proof states
  /// the deposit's terms and exclusivity, from its output chain, a fill by fillDeadline, and a nonzero filler the
  /// exclusivity allowed at the proof's fill time.
  function _admissible(Order memory o, FillProof memory proof, uint256 outputChainId, address filler)
    internal
    view
    returns (bool)
  {
    return proof.orderHash == escrow.hashOrder(o) && proof.inputToken == o.inputToken
      && proof.inputAmount == o.inputAmount && proof.protocolFee == o.protocolFee
      && proof.fillDeadline == o.fillDeadline && proof.exclusiveFiller == o.filler
      && proof.exclusivityDeadline == o.exclusivityDeadline && outputChainId == o.outputChainId
      && proof.fillTime <= o.fillDeadline && filler != address(0)
      && (filler == o.filler || o.filler == address(0) || proof.fillTime > o.exclusivityDeadline);
  }

  function _fillTimeOf(Batch memory b, bytes32 h) internal pure returns (uint256) {
    for (uint256 i = 0; i < b.hashes.length; ++i) {
      if (b.hashes[i] == h && b.admissible[i]) return b.proofs[i].fillTime;
    }
    return 0;
  }

  /// @dev Whether the escrow emitted exactly one Open event, for `orderHash`, among `logs`.
  function _opened(Vm.Log[] memory logs, bytes32 orderHash) internal view returns (bool) {
    uint256 found;
    for (uint256 i = 0; i < logs.length; ++i) {
      if (logs[i].emitter != address(escrow) || logs[i].topics[0] != IOriginSettler.Open.selector) continue;
      if (logs[i].topics[1] != orderHash) return false;
      ++found;
    }
    return found == 1;
  }
}
