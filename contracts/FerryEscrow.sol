// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ECDSA} from "./lib/ECDSA.sol";
import {SafeTransfer} from "./lib/SafeTransfer.sol";
import {IERC20, IERC20Permit} from "./interfaces/IERC20.sol";
import {IFerrySettlement} from "./interfaces/IFerrySettlement.sol";

/// @title FerryEscrow
/// @notice Input-chain half of a Ferry swap. The offerer signs an EIP-712 Order; anyone (normally Ferry's
/// worker) submits it with deposit(), which locks the input tokens. The escrow then releases them exactly
/// once: to the order's filler when the messenger proves the output-chain fill (settle), or back to the
/// offerer once the fill deadline and the settle grace have passed (refund).
contract FerryEscrow is IFerrySettlement {
  using SafeTransfer for address;

  /// @dev Field order and names must match ORDER_TYPEHASH and the typed data the API hands out.
  struct Order {
    address offerer;
    address recipient;
    address inputToken;
    address outputToken;
    uint256 inputAmount;
    uint256 outputAmount;
    uint256 inputChainId;
    uint256 outputChainId;
    address filler;
    uint256 nonce;
    uint256 openDeadline;
    uint256 fillDeadline;
  }

  enum Status {
    None,
    Active,
    Settled,
    Refunded
  }

  /// @dev What settle/refund need later; the rest of the order only matters for the hash.
  struct Deposit {
    Status status;
    address offerer;
    address filler;
    address token;
    uint256 amount;
    uint256 fillDeadline;
  }

  event Deposited(bytes32 indexed orderHash, address indexed offerer, address inputToken, uint256 inputAmount);
  event Settled(bytes32 indexed orderHash, address indexed filler);
  event Refunded(bytes32 indexed orderHash);

  error WrongChain();
  error OrderExpired();
  error InvalidOrder();
  error OrderExists();
  error WrongSigner();
  error NotMessenger();
  error NotActive();
  /// @notice refund() was called before fillDeadline + settleGrace.
  error RefundNotOpen(uint256 opensAfter);
  error AmountMismatch();
  error Reentrancy();

  bytes32 public constant ORDER_TYPEHASH = keccak256(
    "Order(address offerer,address recipient,address inputToken,address outputToken,uint256 inputAmount,"
    "uint256 outputAmount,uint256 inputChainId,uint256 outputChainId,address filler,uint256 nonce,"
    "uint256 openDeadline,uint256 fillDeadline)"
  );
  bytes32 private constant DOMAIN_TYPEHASH =
    keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");

  /// @notice The only address allowed to call settle(); see IFillMessenger.
  address public immutable messenger;

  /// @notice Seconds after an order's fillDeadline during which only settle() can release it. A fill made by
  /// fillDeadline on the output chain needs time to be seen, attested and relayed here; without the grace the
  /// offerer could refund in that window and keep both the input and the output.
  uint256 public immutable settleGrace;

  uint256 private immutable deployChainId;
  bytes32 private immutable cachedDomainSeparator;

  mapping(bytes32 orderHash => Deposit) public deposits;

  uint256 private lock = 1;

  modifier nonReentrant() {
    if (lock != 1) revert Reentrancy();
    lock = 2;
    _;
    lock = 1;
  }

  constructor(address messenger_, uint256 settleGrace_) {
    messenger = messenger_;
    settleGrace = settleGrace_;
    deployChainId = block.chainid;
    cachedDomainSeparator = _domainSeparator();
  }

  // ---------------------------------------------------------------- views

  function DOMAIN_SEPARATOR() public view returns (bytes32) {
    return block.chainid == deployChainId ? cachedDomainSeparator : _domainSeparator();
  }

  /// @notice The EIP-712 digest of `order`; it doubles as the order's id everywhere in Ferry. It binds the
  /// chain id and this escrow's address, so the same order signed for another escrow is a different order.
  function hashOrder(Order calldata order) public view returns (bytes32) {
    // All Order fields are static, so abi.encode lays them out as consecutive 32-byte words: exactly the
    // EIP-712 encodeData of the struct.
    bytes32 structHash = keccak256(abi.encode(ORDER_TYPEHASH, order));
    return keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
  }

  /// @return 0 None, 1 Active, 2 Settled, 3 Refunded.
  function orderStatus(bytes32 orderHash) external view returns (uint8) {
    return uint8(deposits[orderHash].status);
  }

  // ---------------------------------------------------------------- deposits

  /// @notice Locks the order's input tokens; the offerer must have approved this escrow.
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

    orderHash = hashOrder(order);
    // Each orderHash is usable once, ever: a settled or refunded order cannot be deposited again, which is
    // what makes the signature non-replayable (the nonce lets an offerer sign otherwise identical orders).
    if (deposits[orderHash].status != Status.None) revert OrderExists();
    if (ECDSA.recover(orderHash, signature) != order.offerer) revert WrongSigner();

    deposits[orderHash] = Deposit({
      status: Status.Active,
      offerer: order.offerer,
      filler: order.filler,
      token: order.inputToken,
      amount: order.inputAmount,
      fillDeadline: order.fillDeadline
    });

    // Fee-on-transfer or rebasing-down tokens would leave the escrow short of what it promises to pay out.
    uint256 balanceBefore = IERC20(order.inputToken).balanceOf(address(this));
    order.inputToken.safeTransferFrom(order.offerer, address(this), order.inputAmount);
    if (IERC20(order.inputToken).balanceOf(address(this)) - balanceBefore != order.inputAmount) {
      revert AmountMismatch();
    }

    emit Deposited(orderHash, order.offerer, order.inputToken, order.inputAmount);
  }

  // ---------------------------------------------------------------- release

  /// @notice Pays the locked input to the order's filler once the messenger has proven the fill. Works after
  /// fillDeadline too (the attester only attests fills made by it), in particular during the settle grace.
  function settle(bytes32 orderHash) external nonReentrant {
    if (msg.sender != messenger) revert NotMessenger();
    Deposit storage d = deposits[orderHash];
    if (d.status != Status.Active) revert NotActive();
    d.status = Status.Settled;
    d.token.safeTransfer(d.filler, d.amount);
    emit Settled(orderHash, d.filler);
  }

  /// @notice Returns the locked input to the offerer once fillDeadline + settleGrace has passed unsettled.
  /// @dev Permissionless so that offerers are never dependent on Ferry to get their funds back.
  function refund(bytes32 orderHash) external nonReentrant {
    Deposit storage d = deposits[orderHash];
    if (d.status != Status.Active) revert NotActive();
    uint256 opensAfter = d.fillDeadline + settleGrace;
    if (block.timestamp <= opensAfter) revert RefundNotOpen(opensAfter);
    d.status = Status.Refunded;
    d.token.safeTransfer(d.offerer, d.amount);
    emit Refunded(orderHash);
  }

  function _domainSeparator() private view returns (bytes32) {
    return keccak256(abi.encode(DOMAIN_TYPEHASH, keccak256("Ferry"), keccak256("1"), block.chainid, address(this)));
  }
}
