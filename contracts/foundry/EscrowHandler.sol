// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {FillProof, Order} from "../lib/FerryOrder.sol";
import {EscrowBooks} from "./utils/EscrowBooks.sol";
import {FuzzToken} from "./utils/FuzzToken.sol";
import {vm} from "./utils/Vm.sol";

/// @notice Drives one FerryEscrow through every external function in the order the invariant fuzzer picks: deposits
/// (approve or permit, EOA or EIP-1271 offerers, four kinds of token), fills on the output chain through FerryFill,
/// proofs delivered as the escrow's settler (true, late, wrong-terms, forged, by a stranger), refunds by anyone,
/// withdrawals of what the escrow owes, token admin (blacklist, pause, transfer fee) and time. It is the settler, so
/// it sees every proof the escrow was given, and it keeps ghost books the invariants compare with the chain.
contract EscrowHandler is EscrowBooks {
  // ---------------------------------------------------------------- actions

  /// @dev Block time and chain id as this run left them (the fuzzer's calls do not carry them over themselves).
  modifier atCurrentTime() {
    vm.warp(currentTime);
    vm.chainId(inputChainId);
    _;
  }

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
    mode %= 8;
    Order memory o = _newOrder(who, tokenSeed, fillerSeed, amount, feeSeed, windows);
    // Now and then an order whose refund time would overflow: the escrow must refuse it.
    if (mode == 7) o.fillDeadline = type(uint256).max - ((windows >> 64) % GRACE);
    FuzzToken(o.inputToken).mint(o.offerer, o.inputAmount);
    if (!_submit(o, who, mode, caller)) return;

    bytes32 orderHash = escrow.hashOrder(o);
    orders.push(o);
    orderHashes.push(orderHash);
    _expect(ghostStatus[orderHash] == 0, "a deposit reused an orderHash");
    ghostStatus[orderHash] = 1;
    unchecked {
      if (o.fillDeadline + GRACE < o.fillDeadline) ++overflowingDeposits;
    }
  }

  function _newOrder(
    uint256 who,
    uint256 tokenSeed,
    uint256 fillerSeed,
    uint256 amount,
    uint256 feeSeed,
    uint256 windows
  ) internal returns (Order memory o) {
    o.offerer = offerers[who];
    o.recipient = address(0xBEEF);
    o.inputToken = address(tokens[tokenSeed % N_TOKENS]);
    o.outputToken = address(outputToken);
    o.inputAmount = _bound(amount, 1, 1e15);
    o.outputAmount = o.inputAmount;
    o.inputChainId = inputChainId;
    o.outputChainId = outputChains[(fillerSeed >> 8) % 2];
    o.filler = fillers[fillerSeed % 3];
    o.nonce = ++nonce;
    o.openDeadline = currentTime + (windows % 1 hours);
    o.fillDeadline = o.openDeadline + ((windows >> 32) % 2 hours);
    // Mostly small fees, sometimes all of the input.
    o.protocolFee = feeSeed % 8 == 0 ? o.inputAmount : _bound(feeSeed >> 8, 0, o.inputAmount / 10);
  }

  /// @dev deposit() after an approval, or depositWithPermit() (modes 5 and 6, EOA offerers; in mode 6 someone
  /// spends the permit first), submitted by `caller`; whether the escrow accepted it.
  function _submit(Order memory o, uint256 who, uint256 mode, address caller) internal returns (bool) {
    FuzzToken input = FuzzToken(o.inputToken);
    bytes memory signature = _sign(escrow, offererKeys[who], o);
    if ((mode != 5 && mode != 6) || who == 3) {
      vm.prank(o.offerer);
      input.approve(address(escrow), o.inputAmount);
      vm.prank(caller);
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

  /// @notice The order's filler pays the recipient on the output chain through FerryFill (by fillDeadline only).
  function fill(uint256 orderSeed) external atCurrentTime {
    if (orders.length == 0) return;
    Order memory o = orders[orderSeed % orders.length];
    outputToken.mint(o.filler, o.outputAmount);
    vm.prank(o.filler);
    outputToken.approve(address(fillContract), o.outputAmount);
    vm.chainId(o.outputChainId);
    vm.prank(o.filler);
    try fillContract.fill(o, address(escrow)) {} catch {}
    vm.chainId(inputChainId);
  }

  /// @notice Delivers a batch of up to four proofs for one filler and output chain, each true (the fill FerryFill
  /// recorded), late, with wrong terms or forged; now and then for the wrong route, by a stranger, or with little gas.
  function prove(uint256 orderSeed, uint256 modes, uint256 count, address stranger) external atCurrentTime {
    if (orders.length == 0) return;
    Order memory first = orders[orderSeed % orders.length];
    uint256 n = 1 + count % 4;
    FillProof[] memory proofs = new FillProof[](n);
    bytes32[] memory hashes = new bytes32[](n);
    bool[] memory truthful = new bool[](n);
    for (uint256 i = 0; i < n; ++i) {
      Order memory o = _sameRoute(first, orderSeed % orders.length + i * 7);
      hashes[i] = escrow.hashOrder(o);
      (proofs[i], truthful[i]) = _proof(o, hashes[i], (modes >> (8 * i)) % 5, modes >> (64 + 16 * i));
    }
    uint256 route = (count >> 8) % 16;
    uint256 outputChainId = route == 0 ? first.outputChainId + 1 : first.outputChainId;
    address filler = route == 1 ? _otherFiller(first.filler) : first.filler;
    if (route <= 1) {
      for (uint256 i = 0; i < n; ++i) {
        truthful[i] = false;
      }
    }

    if (route == 2 && stranger != address(this)) {
      vm.prank(stranger);
      try escrow.settleFills(outputChainId, filler, proofs) {
        _violation("a stranger settled");
      } catch {}
      return;
    }

    // LayerZero's lzReceive is permissionless once a message is verified: whoever executes it picks the gas. A
    // starved delivery may revert as a whole (the message stays deliverable) or run out inside a token transfer,
    // which must then leave a credit, never a loss.
    bool starved = route == 3;
    bool[] memory wasActive = new bool[](n);
    for (uint256 i = 0; i < n; ++i) {
      wasActive[i] = escrow.orderStatus(hashes[i]) == 1;
      if (truthful[i] && wasActive[i] && !starved) provenWhileActive[hashes[i]] = true;
    }
    vm.recordLogs();
    try escrow.settleFills{gas: starved ? 30_000 + (count >> 16) % 300_000 : gasleft()}(outputChainId, filler, proofs) {
      _countEndings(vm.getRecordedLogs());
      for (uint256 i = 0; i < n; ++i) {
        if (truthful[i] && wasActive[i]) provenWhileActive[hashes[i]] = true;
      }
    } catch {
      vm.getRecordedLogs();
    }

    for (uint256 i = 0; i < n; ++i) {
      bytes32 h = hashes[i];
      uint8 status = escrow.orderStatus(h);
      if (status == ghostStatus[h]) continue;
      _expect(ghostStatus[h] == 1 && status == 2, "settleFills made a transition other than Active to Settled");
      _expect(_anyTruthful(hashes, truthful, h), "an order settled without a true proof");
      ghostStatus[h] = status;
      Order memory o = _orderOf(h);
      entitled[o.inputToken][o.filler] += o.inputAmount - o.protocolFee;
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
    proof = FillProof(h, o.inputToken, o.inputAmount, o.protocolFee, o.fillDeadline, filledAt);
    if (mode <= 1 && filledAt != 0) return (proof, true);
    if (mode <= 2 && o.fillDeadline < type(uint256).max) {
      // Late: the proof claims a fill after fillDeadline.
      proof.fillTime = o.fillDeadline + 1 + seed % _min(1 days, type(uint256).max - o.fillDeadline);
    } else if (mode == 3) {
      // Wrong terms: one term the escrow pays out differs from the deposit's.
      uint256 which = seed % 4;
      if (which == 0) proof.inputAmount ^= 1 + (seed >> 8) % 1000;
      else if (which == 1) proof.protocolFee ^= 1 + (seed >> 8) % 1000;
      else if (which == 2) proof.fillDeadline ^= 1 + (seed >> 8) % 1000;
      else proof.inputToken = address(tokens[(_tokenIndex(o.inputToken) + 1 + seed % 3) % N_TOKENS]);
      if (proof.fillTime == 0) proof.fillTime = o.fillDeadline;
    } else {
      // Forged: an orderHash no deposit has, with this order's terms.
      proof.orderHash = keccak256(abi.encode(h, seed));
      proof.fillTime = o.fillDeadline;
    }
  }
}
