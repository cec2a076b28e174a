// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {FerryOrder, FillProof, Order} from "./lib/FerryOrder.sol";
import {SafeTransfer} from "./lib/SafeTransfer.sol";
import {SignatureCheck} from "./lib/SignatureCheck.sol";
import {IERC20, IERC20Permit} from "./interfaces/IERC20.sol";
import {IFerrySettlement} from "./interfaces/IFerrySettlement.sol";

/// @title FerryEscrow
/// @notice Input-chain half of a Ferry swap. The offerer signs an EIP-712 Order; anyone (normally Ferry's
/// worker) submits it with deposit(), which locks the input tokens. The escrow then releases them exactly
/// once: to the order's filler when the settler proves the output-chain fill (settleFills), or back to the
/// offerer once the fill deadline and the settle grace have passed (refund).
/// @dev A deposit stores one slot under its orderHash: the order's status in the low byte and, above it, the high
/// 248 bits of FerryOrder.settleCommitment (filler, output chain, input token, input amount, fee, fill deadline).
/// refund() gets the full order back in calldata, which must hash to the deposited orderHash; a settlement gets only
/// the terms it pays out, which must match the commitment. So no field of a deposit can be changed afterwards, and
/// a deposit costs one cold storage write instead of five.
contract FerryEscrow is IFerrySettlement {
  using SafeTransfer for address;

  enum Status {
    None,
    Active,
    Settled,
    Refunded
  }

  /// @notice Why a proof was not settled: the order was not Active (never deposited, or already settled or
  /// refunded), the proof's terms (filler, output chain, input token, input amount, fee, fill deadline) are not the
  /// deposit's, or the fill came after fillDeadline.
  enum SkipReason {
    NotActive,
    WrongTerms,
    LateFill
  }

  event Deposited(bytes32 indexed orderHash, address indexed offerer, address inputToken, uint256 inputAmount);
  event Settled(bytes32 indexed orderHash, address indexed filler);
  event FeePaid(bytes32 indexed orderHash, address indexed feeRecipient, uint256 protocolFee);
  event SettleSkipped(bytes32 indexed orderHash, SkipReason reason);
  event Refunded(bytes32 indexed orderHash);

  error WrongChain();
  error OrderExpired();
  error InvalidOrder();
  error OrderExists();
  error WrongSigner();
  error NotSettler();
  error NotActive();
  /// @notice refund() was called before fillDeadline + settleGrace.
  error RefundNotOpen(uint256 opensAfter);
  error AmountMismatch();
  error Reentrancy();

  bytes32 public constant ORDER_TYPEHASH = FerryOrder.ORDER_TYPEHASH;

  /// @notice The only address allowed to call settleFills(). Immutable: no key can later point the escrow at
  /// another settler.
  address public immutable settler;

  /// @notice Seconds after an order's fillDeadline during which only a settlement can release it. A fill made by
  /// fillDeadline on the output chain needs time to be proven and delivered here; without the grace the offerer
  /// could refund in that window and keep both the input and the output.
  uint256 public immutable settleGrace;

  /// @notice Where settlements pay orders' protocolFee. Immutable, fixed at deployment like the settler.
  address public immutable feeRecipient;

  /// @dev The low byte of a deposit's slot: its Status. Settling adds 1 (Active to Settled), refunding adds 2
  /// (Active to Refunded); neither touches the commitment above it.
  uint256 private constant STATUS_MASK = 0xff;

  mapping(bytes32 orderHash => uint256 slot) private deposits;

  /// @dev Transient (EIP-1153): the guard lives only for its transaction, so it costs a few hundred gas per
  /// call instead of a cold storage read and a write.
  bool private transient locked;

  modifier nonReentrant() {
    if (locked) revert Reentrancy();
    locked = true;
    _;
    locked = false;
  }

  constructor(address settler_, uint256 settleGrace_, address feeRecipient_) {
    settler = settler_;
    settleGrace = settleGrace_;
    feeRecipient = feeRecipient_;
  }

  // ---------------------------------------------------------------- views

  function DOMAIN_SEPARATOR() external view returns (bytes32) {
    return FerryOrder.domainSeparator(block.chainid, address(this));
  }

  /// @notice The EIP-712 digest of `order`; it doubles as the order's id everywhere in Ferry. It binds the
  /// input chain id and this escrow's address, so the same order signed for another escrow is a different order.
  function hashOrder(Order calldata order) public view returns (bytes32) {
    return FerryOrder.hash(order, address(this));
  }

  /// @return 0 None, 1 Active, 2 Settled, 3 Refunded.
  function orderStatus(bytes32 orderHash) external view returns (uint8) {
    return uint8(deposits[orderHash] & STATUS_MASK);
  }

  // ---------------------------------------------------------------- deposits

  /// @notice Locks the order's input tokens; the offerer must have approved this escrow. An offerer with code (a
  /// Safe, a smart account) signs through EIP-1271.
  /// @dev Callable by anyone: the offerer's signature is the authorisation, and the caller cannot change
  /// a single field of the order without invalidating it.
  function deposit(Order calldata order, bytes calldata signature) external nonReentrant returns (bytes32) {
    return _deposit(order, signature);
  }

  /// @notice Like deposit(), but first spends an EIP-2612 permit so the offerer needs no approve tx.
  function depositWithPermit(
    Order calldata order,
    bytes calldata signature,
    uint256 permitDeadline,
    uint8 v,
    bytes32 r,
    bytes32 s
  ) external nonReentrant returns (bytes32) {
    // Anyone can submit a permit they saw in the mempool first; that "fails" our call although the allowance
    // is then in place. Ignore the failure and let transferFrom decide whether the allowance suffices.
    try IERC20Permit(order.inputToken).permit(
      order.offerer, address(this), order.inputAmount, permitDeadline, v, r, s
    ) {} catch {}
    return _deposit(order, signature);
  }

  function _deposit(Order calldata order, bytes calldata signature) private returns (bytes32 orderHash) {
    if (block.chainid != order.inputChainId) revert WrongChain();
    if (block.timestamp > order.openDeadline) revert OrderExpired();
    // Sanity checks that keep settle/refund well-defined: something to move, someone to pay, and a fill
    // window that does not close before the order can be opened.
    if (order.inputAmount == 0 || order.filler == address(0) || order.fillDeadline < order.openDeadline) {
      revert InvalidOrder();
    }
    // A fee larger than the input, or one with nowhere to go, would make the settlement impossible.
    if (order.protocolFee > order.inputAmount || (order.protocolFee != 0 && feeRecipient == address(0))) {
      revert InvalidOrder();
    }

    orderHash = FerryOrder.hash(order, address(this));
    // Each orderHash is usable once, ever: a settled or refunded order cannot be deposited again, which is
    // what makes the signature non-replayable (the nonce lets an offerer sign otherwise identical orders).
    if (deposits[orderHash] != 0) revert OrderExists();
    if (!SignatureCheck.isValid(order.offerer, orderHash, signature)) revert WrongSigner();
    deposits[orderHash] = _commitment(
      order.filler, order.outputChainId, order.inputToken, order.inputAmount, order.protocolFee, order.fillDeadline
    ) | uint256(Status.Active);

    // Fee-on-transfer or rebasing-down tokens would leave the escrow short of what it promises to pay out.
    uint256 balanceBefore = IERC20(order.inputToken).balanceOf(address(this));
    order.inputToken.safeTransferFrom(order.offerer, address(this), order.inputAmount);
    if (IERC20(order.inputToken).balanceOf(address(this)) - balanceBefore != order.inputAmount) {
      revert AmountMismatch();
    }

    emit Deposited(orderHash, order.offerer, order.inputToken, order.inputAmount);
  }

  // ---------------------------------------------------------------- release

  /// @inheritdoc IFerrySettlement
  /// @dev Works after fillDeadline too (a proof carries the fill's own time), in particular during the grace.
  /// Payouts are summed over each run of consecutive proofs with the same input token and paid with one transfer
  /// to the filler and one to the fee recipient per run; the Settled (and FeePaid) events stay per order.
  function settleFills(uint256 outputChainId, address filler, FillProof[] calldata proofs) external nonReentrant {
    if (msg.sender != settler) revert NotSettler();
    address token;
    uint256 toFiller;
    uint256 fees;
    for (uint256 i = 0; i < proofs.length; ++i) {
      FillProof calldata proof = proofs[i];
      if (!_settle(outputChainId, filler, proof)) continue;
      if (proof.inputToken != token) {
        _pay(token, filler, toFiller, fees);
        (token, toFiller, fees) = (proof.inputToken, 0, 0);
      }
      // protocolFee <= inputAmount was checked at deposit, and the commitment pins both.
      toFiller += proof.inputAmount - proof.protocolFee;
      fees += proof.protocolFee;
    }
    _pay(token, filler, toFiller, fees);
  }

  /// @dev Marks `proof`'s order Settled if it matches an Active deposit; false (after SettleSkipped) otherwise.
  function _settle(uint256 outputChainId, address filler, FillProof calldata proof) private returns (bool) {
    bytes32 orderHash = proof.orderHash;
    uint256 slot = deposits[orderHash];
    if (slot & STATUS_MASK != uint256(Status.Active)) return _skip(orderHash, SkipReason.NotActive);
    uint256 commitment = _commitment(
      filler, outputChainId, proof.inputToken, proof.inputAmount, proof.protocolFee, proof.fillDeadline
    );
    if (slot != commitment | uint256(Status.Active)) return _skip(orderHash, SkipReason.WrongTerms);
    if (proof.fillTime > proof.fillDeadline) return _skip(orderHash, SkipReason.LateFill);
    deposits[orderHash] = slot + 1; // Active to Settled
    emit Settled(orderHash, filler);
    if (proof.protocolFee != 0) emit FeePaid(orderHash, feeRecipient, proof.protocolFee);
    return true;
  }

  function _pay(address token, address filler, uint256 toFiller, uint256 fees) private {
    if (toFiller != 0) token.safeTransfer(filler, toFiller);
    if (fees != 0) token.safeTransfer(feeRecipient, fees);
  }

  function _skip(bytes32 orderHash, SkipReason reason) private returns (bool) {
    emit SettleSkipped(orderHash, reason);
    return false;
  }

  /// @dev The commitment with its low byte cleared for the status.
  function _commitment(
    address filler,
    uint256 outputChainId,
    address inputToken,
    uint256 inputAmount,
    uint256 protocolFee,
    uint256 fillDeadline
  ) private pure returns (uint256) {
    bytes32 c =
      FerryOrder.settleCommitment(filler, outputChainId, inputToken, inputAmount, protocolFee, fillDeadline);
    return uint256(c) & ~STATUS_MASK;
  }

  /// @notice Returns the locked input to the offerer once fillDeadline + settleGrace has passed unsettled.
  /// @dev Permissionless so that offerers are never dependent on Ferry to get their funds back.
  function refund(Order calldata order) external nonReentrant {
    bytes32 orderHash = FerryOrder.hash(order, address(this));
    uint256 slot = deposits[orderHash];
    if (slot & STATUS_MASK != uint256(Status.Active)) revert NotActive();
    uint256 opensAfter = order.fillDeadline + settleGrace;
    if (block.timestamp <= opensAfter) revert RefundNotOpen(opensAfter);
    deposits[orderHash] = slot + 2; // Active to Refunded
    order.inputToken.safeTransfer(order.offerer, order.inputAmount);
    emit Refunded(orderHash);
  }
}
