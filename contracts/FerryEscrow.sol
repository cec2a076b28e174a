// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {FerryOrder, FillProof, Order} from "./lib/FerryOrder.sol";
import {IFerrySettlement} from "./interfaces/IFerrySettlement.sol";
import {IFerrySettler} from "./interfaces/IFerrySettler.sol";
import {
  FillInstruction,
  GaslessCrossChainOrder,
  IOriginSettler,
  OnchainCrossChainOrder,
  Output,
  ResolvedCrossChainOrder
} from "./interfaces/IERC7683.sol";

/// @title FerryEscrow
/// @notice Input-chain half of a Ferry swap. The offerer signs an EIP-712 Order; anyone (normally Ferry's
/// worker) submits it with deposit(), which locks the input tokens. The escrow then releases them exactly
/// once: to whoever filled it (the filler of record: the order's exclusive filler, or anyone after its
/// exclusivityDeadline) when the settler proves the output-chain fill (settleFills), or back to the offerer once
/// the fill deadline and the settle grace have passed (refund).
/// It is an ERC-7683 origin settler: an offerer opens its own order with open() (no signature, no API), anyone
/// submits a signed one with openFor(), and every deposit, whichever function made it, emits the standard Open
/// event with the order's resolved terms. The protocol fee is fixed at deployment and enforced for every order.
/// Settlement and refund never depend on a token transfer succeeding: protocol fees accrue here per token and the
/// fee recipient pulls them (withdraw), and a payout the token refuses (a blacklisted filler or offerer, a paused
/// token, any revert or false) is credited to its account instead, while the order still becomes Settled or
/// Refunded. So a delivered proof of a fill always settles its order, and a refund can never follow a proven fill.
/// @dev A deposit stores one slot under its orderHash: the order's status in the low byte and, above it, the high
/// 248 bits of FerryOrder.settleCommitment (exclusive filler, exclusivity deadline, output chain, input token, input
/// amount, fee, fill deadline).
/// refund() gets the full order back in calldata, which must hash to the deposited orderHash; a settlement gets only
/// the terms it pays out, which must match the commitment. So no field of a deposit can be changed afterwards, and
/// a deposit costs one cold storage write instead of five.
contract FerryEscrow is IFerrySettlement, IOriginSettler, ReentrancyGuardTransient {
  using SafeERC20 for IERC20;

  enum Status {
    None,
    Active,
    Settled,
    Refunded
  }

  /// @notice Why a proof was not settled: the order was not Active (never deposited, or already settled or
  /// refunded), the proof's terms (exclusivity, output chain, input token, input amount, fee, fill deadline) are not
  /// the deposit's, the fill came after fillDeadline, or the filler of record may not have filled (someone other
  /// than the exclusive filler within the exclusivity, or the zero address).
  enum SkipReason {
    NotActive,
    WrongTerms,
    LateFill,
    WrongFiller
  }

  event Deposited(bytes32 indexed orderHash, address indexed offerer, address inputToken, uint256 inputAmount);
  event Settled(bytes32 indexed orderHash, address indexed filler);
  /// @notice The settled order's protocolFee now belongs to feeRecipient; it is owed (see owed) until withdrawn.
  event FeeAccrued(bytes32 indexed orderHash, uint256 protocolFee);
  event SettleSkipped(bytes32 indexed orderHash, SkipReason reason);
  event Refunded(bytes32 indexed orderHash);
  /// @notice A payout (to a filler at settlement, to an offerer at refund) the token refused; kept for `account`.
  event Credited(address indexed token, address indexed account, uint256 amount);
  event Withdrawn(address indexed token, address indexed account, uint256 amount);

  error WrongChain();
  error OrderExpired();
  error InvalidOrder();
  /// @notice The order's protocolFee is not protocolFeeBps of its inputAmount (rounded down).
  error WrongFee(uint256 expected);
  /// @notice open/openFor: orderDataType is not ORDER_TYPEHASH, or the ERC-7683 order's fields disagree with the
  /// Ferry Order in orderData.
  error WrongOrderData();
  /// @notice open/openFor take no native value.
  error NoValue();
  error OrderExists();
  error WrongSigner();
  error NotSettler();
  error NotActive();
  /// @notice refund() was called before fillDeadline + settleGrace.
  error RefundNotOpen(uint256 opensAfter);
  error AmountMismatch();
  /// @notice withdraw() found nothing owed to the account in the token.
  error NothingOwed();

  bytes32 public constant ORDER_TYPEHASH = FerryOrder.ORDER_TYPEHASH;

  /// @notice The only address allowed to call settleFills(). Immutable: no key can later point the escrow at
  /// another settler.
  address public immutable settler;

  /// @notice Seconds after an order's fillDeadline during which only a settlement can release it. A fill made by
  /// fillDeadline on the output chain needs time to be proven and delivered here; without the grace the offerer
  /// could refund in that window and keep both the input and the output.
  uint256 public immutable settleGrace;

  /// @notice Who settled orders' protocolFee accrues to (withdrawn with withdraw). Immutable, fixed at deployment
  /// like the settler.
  address public immutable feeRecipient;

  /// @notice Ferry's protocol fee in basis points of every order's input, fixed at deployment: an order's
  /// protocolFee must be inputAmount * protocolFeeBps / 10000, rounded down, however it is opened.
  uint256 public immutable protocolFeeBps;

  uint256 private constant MAX_FEE_BPS = 10_000;

  /// @dev The low byte of a deposit's slot: its Status. Settling adds 1 (Active to Settled), refunding adds 2
  /// (Active to Refunded); neither touches the commitment above it.
  uint256 private constant STATUS_MASK = 0xff;

  mapping(bytes32 orderHash => uint256 slot) private deposits;

  /// @notice What the escrow owes `account` in `token`: accrued protocol fees of the fee recipient, and payouts or
  /// refunds whose transfer failed. Paid out by withdraw(token, account).
  mapping(address token => mapping(address account => uint256 amount)) public owed;

  constructor(address settler_, uint256 settleGrace_, address feeRecipient_, uint256 protocolFeeBps_) {
    // A fee larger than the input, or one with nowhere to go, would make every settlement impossible.
    if (protocolFeeBps_ > MAX_FEE_BPS || (protocolFeeBps_ != 0 && feeRecipient_ == address(0))) revert InvalidOrder();
    settler = settler_;
    settleGrace = settleGrace_;
    feeRecipient = feeRecipient_;
    protocolFeeBps = protocolFeeBps_;
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

  // ---------------------------------------------------------------- ERC-7683

  /// @notice Opens the caller's own order: `order.orderData` is abi.encode(Order) with the caller as offerer (who
  /// must have approved the input), `orderDataType` is ORDER_TYPEHASH. No signature: the call is the authorisation.
  function open(OnchainCrossChainOrder calldata order) external payable nonReentrant {
    Order calldata o = _onchainOrder(order);
    if (o.offerer != msg.sender) revert WrongSigner();
    _deposit(o, order.orderData[0:0]);
  }

  /// @notice Deposits a signed order, like deposit(): `order.orderData` is abi.encode(Order) and `signature` the
  /// offerer's over Ferry's EIP-712 Order (what the API hands out), so wallets show the terms they sign.
  function openFor(GaslessCrossChainOrder calldata order, bytes calldata signature, bytes calldata)
    external
    payable
    nonReentrant
  {
    _deposit(_gaslessOrder(order), signature);
  }

  function resolve(OnchainCrossChainOrder calldata order) external view returns (ResolvedCrossChainOrder memory) {
    Order calldata o = _onchainOrder(order);
    _checkTerms(o);
    return _resolve(o, FerryOrder.hash(o, address(this)));
  }

  function resolveFor(GaslessCrossChainOrder calldata order, bytes calldata)
    external
    view
    returns (ResolvedCrossChainOrder memory)
  {
    Order calldata o = _gaslessOrder(order);
    _checkTerms(o);
    return _resolve(o, FerryOrder.hash(o, address(this)));
  }

  function _onchainOrder(OnchainCrossChainOrder calldata order) private view returns (Order calldata o) {
    if (msg.value != 0) revert NoValue();
    if (order.orderDataType != FerryOrder.ORDER_TYPEHASH) revert WrongOrderData();
    o = FerryOrder.fromCalldata(order.orderData, 0);
    if (o.fillDeadline != order.fillDeadline) revert WrongOrderData();
  }

  function _gaslessOrder(GaslessCrossChainOrder calldata order) private view returns (Order calldata o) {
    if (msg.value != 0) revert NoValue();
    if (order.orderDataType != FerryOrder.ORDER_TYPEHASH) revert WrongOrderData();
    o = FerryOrder.fromCalldata(order.orderData, 0);
    if (
      order.originSettler != address(this) || order.user != o.offerer || order.nonce != o.nonce
        || order.originChainId != o.inputChainId || order.openDeadline != o.openDeadline
        || order.fillDeadline != o.fillDeadline
    ) revert WrongOrderData();
  }

  /// @notice The order as ERC-7683 states it. A filler spends the output to the recipient on the output chain and
  /// receives the input less the protocol fee here; minReceived names the exclusive filler (zero when the order is
  /// open from the start). The one fill instruction points at Ferry's app on the output chain (zero where this
  /// escrow's settler knows none) with originData = abi.encode(order, escrow), what FerryApp's fill() takes.
  function _resolve(Order calldata order, bytes32 orderHash)
    private
    view
    returns (ResolvedCrossChainOrder memory resolved)
  {
    Output[] memory maxSpent = new Output[](1);
    maxSpent[0] = Output(
      _b32(order.outputToken), order.outputAmount, _b32(order.recipient), order.outputChainId
    );
    Output[] memory minReceived = new Output[](1);
    minReceived[0] = Output(
      _b32(order.inputToken), order.inputAmount - order.protocolFee, _b32(order.filler), order.inputChainId
    );
    FillInstruction[] memory instructions = new FillInstruction[](1);
    instructions[0] =
      FillInstruction(order.outputChainId, _destinationSettler(order.outputChainId), abi.encode(order, address(this)));
    // Deadlines fit 32 bits: _checkTerms refuses any order whose fillDeadline (>= openDeadline) does not.
    resolved = ResolvedCrossChainOrder(
      order.offerer,
      order.inputChainId,
      uint32(order.openDeadline),
      uint32(order.fillDeadline),
      orderHash,
      maxSpent,
      minReceived,
      instructions
    );
  }

  /// @dev Asked with a plain staticcall: a settler that is not a Ferry settler (answers nothing) names no destination
  /// rather than refusing the deposit.
  function _destinationSettler(uint256 chainId) private view returns (bytes32 destination) {
    (bool ok, bytes memory answer) =
      settler.staticcall(abi.encodeCall(IFerrySettler.destinationSettlerOf, (chainId)));
    if (ok && answer.length == 32) destination = abi.decode(answer, (bytes32));
  }

  function _b32(address account) private pure returns (bytes32) {
    return bytes32(uint256(uint160(account)));
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

  /// @dev Refuses what would leave settle or refund ill-defined: nothing to move, a fill window that closes before
  /// the order can be opened, deadlines past 32 bits (ERC-7683 states them as uint32), a fillDeadline + settleGrace
  /// that overflows (refund() must always be able to compute when it opens), and a fee other than the escrow's.
  function _checkTerms(Order calldata order) private view {
    if (block.chainid != order.inputChainId) revert WrongChain();
    if (block.timestamp > order.openDeadline) revert OrderExpired();
    if (
      order.inputAmount == 0 || order.fillDeadline < order.openDeadline || order.fillDeadline > type(uint32).max
        || order.fillDeadline > type(uint256).max - settleGrace
    ) {
      revert InvalidOrder();
    }
    uint256 fee = Math.mulDiv(order.inputAmount, protocolFeeBps, MAX_FEE_BPS);
    if (order.protocolFee != fee) revert WrongFee(fee);
  }

  /// @dev An offerer that submits its own order needs no signature (open() does so, and so may deposit()); anyone
  /// else's call needs the offerer's.
  function _deposit(Order calldata order, bytes calldata signature) private returns (bytes32 orderHash) {
    _checkTerms(order);
    orderHash = FerryOrder.hash(order, address(this));
    // Each orderHash is usable once, ever: a settled or refunded order cannot be deposited again, which is
    // what makes the signature non-replayable (the nonce lets an offerer sign otherwise identical orders).
    if (deposits[orderHash] != 0) revert OrderExists();
    if (!(signature.length == 0 && msg.sender == order.offerer) && !_isValidSignature(order.offerer, orderHash, signature))
    {
      revert WrongSigner();
    }
    deposits[orderHash] = _commitment(
      order.filler,
      order.exclusivityDeadline,
      order.outputChainId,
      order.inputToken,
      order.inputAmount,
      order.protocolFee,
      order.fillDeadline
    ) | uint256(Status.Active);

    // Fee-on-transfer or rebasing-down tokens would leave the escrow short of what it promises to pay out.
    uint256 balanceBefore = IERC20(order.inputToken).balanceOf(address(this));
    IERC20(order.inputToken).safeTransferFrom(order.offerer, address(this), order.inputAmount);
    if (IERC20(order.inputToken).balanceOf(address(this)) - balanceBefore != order.inputAmount) {
      revert AmountMismatch();
    }

    emit Deposited(orderHash, order.offerer, order.inputToken, order.inputAmount);
    emit Open(orderHash, _resolve(order, orderHash));
  }

  /// @dev A signature that recovers the offerer counts whatever code the address has (an EOA, or one delegated under
  /// EIP-7702, whose key still signs for it), and checking it first skips the offerer's cold code lookup (2,600
  /// gas); only then does an offerer with code (a Safe, a smart account) get asked through EIP-1271. OpenZeppelin's
  /// SignatureChecker alone would ask a delegated EOA's code instead of its key.
  function _isValidSignature(address signer, bytes32 digest, bytes calldata signature) private view returns (bool) {
    (address recovered, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(digest, signature);
    if (err == ECDSA.RecoverError.NoError && recovered == signer) return true;
    return signer.code.length != 0 && SignatureChecker.isValidERC1271SignatureNowCalldata(signer, digest, signature);
  }

  // ---------------------------------------------------------------- release

  /// @inheritdoc IFerrySettlement
  /// @dev Works after fillDeadline too (a proof carries the fill's own time), in particular during the grace.
  /// Payouts are summed over each run of consecutive proofs with the same input token and paid with one transfer
  /// to the filler per run (credited if the token refuses it), and the run's fees accrue to the fee recipient with
  /// one storage write; the Settled (and FeeAccrued) events stay per order.
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
      proof.exclusiveFiller,
      proof.exclusivityDeadline,
      outputChainId,
      proof.inputToken,
      proof.inputAmount,
      proof.protocolFee,
      proof.fillDeadline
    );
    if (slot != commitment | uint256(Status.Active)) return _skip(orderHash, SkipReason.WrongTerms);
    if (proof.fillTime > proof.fillDeadline) return _skip(orderHash, SkipReason.LateFill);
    // FerryFill records only fills it allowed; this holds a forged proof to the deposited exclusivity too.
    if (
      filler == address(0)
        || (filler != proof.exclusiveFiller && proof.exclusiveFiller != address(0)
          && proof.fillTime <= proof.exclusivityDeadline)
    ) return _skip(orderHash, SkipReason.WrongFiller);
    deposits[orderHash] = slot + 1; // Active to Settled
    emit Settled(orderHash, filler);
    if (proof.protocolFee != 0) emit FeeAccrued(orderHash, proof.protocolFee);
    return true;
  }

  function _pay(address token, address filler, uint256 toFiller, uint256 fees) private {
    if (toFiller != 0) _payOrCredit(token, filler, toFiller);
    if (fees != 0) owed[token][feeRecipient] += fees;
  }

  /// @dev Sends `amount` of `token` to `account`, or, if the token refuses (reverts, answers false, has no code),
  /// keeps it for `account` to withdraw later. Never reverts on the token's account, so the status change that
  /// came before it stands.
  function _payOrCredit(address token, address account, uint256 amount) private {
    if (IERC20(token).trySafeTransfer(account, amount)) return;
    owed[token][account] += amount;
    emit Credited(token, account, amount);
  }

  function _skip(bytes32 orderHash, SkipReason reason) private returns (bool) {
    emit SettleSkipped(orderHash, reason);
    return false;
  }

  /// @dev The commitment with its low byte cleared for the status.
  function _commitment(
    address exclusiveFiller,
    uint256 exclusivityDeadline,
    uint256 outputChainId,
    address inputToken,
    uint256 inputAmount,
    uint256 protocolFee,
    uint256 fillDeadline
  ) private pure returns (uint256) {
    bytes32 c = FerryOrder.settleCommitment(
      exclusiveFiller, exclusivityDeadline, outputChainId, inputToken, inputAmount, protocolFee, fillDeadline
    );
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
    _payOrCredit(order.inputToken, order.offerer, order.inputAmount);
    emit Refunded(orderHash);
  }

  // ---------------------------------------------------------------- credits

  /// @notice Pays `account` everything the escrow owes it in `token` (see owed). Permissionless: the tokens can only
  /// go to `account`, so anyone may pay the gas (an operator for its fee recipient, a filler once its token is
  /// unpaused or it is off a blacklist). Reverts, keeping the credit, while the token still refuses the transfer.
  function withdraw(address token, address account) external nonReentrant {
    uint256 amount = owed[token][account];
    if (amount == 0) revert NothingOwed();
    owed[token][account] = 0;
    IERC20(token).safeTransfer(account, amount);
    emit Withdrawn(token, account, amount);
  }
}
