// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {FerryEscrow} from "../../FerryEscrow.sol";
import {FerryFill} from "../../FerryFill.sol";
import {Order} from "../../lib/FerryOrder.sol";
import {ContractOfferer} from "./ContractOfferer.sol";
import {FerryTest} from "./FerryTest.sol";
import {FuzzToken} from "./FuzzToken.sol";
import {Vm, vm} from "./Vm.sol";

/// @notice The world EscrowHandler acts in (the escrow with the handler as settler, FerryFill, four input tokens,
/// offerers, fillers, the fee recipient) and its ghost books: what the handler saw happen, which the invariants
/// compare with the chain through the views below.
abstract contract EscrowBooks is FerryTest {
  uint256 public constant GRACE = 1 hours;
  uint256 internal constant N_TOKENS = 4;
  /// @notice The escrow's protocol fee: every accepted order's protocolFee is this share of its input.
  uint256 public constant FEE_BPS = 30;
  uint256 internal constant SECP256K1_N =
    115792089237316195423570985008687907852837564279074904382605163141518161494337;

  FerryEscrow public immutable escrow;
  FerryFill public immutable fillContract;
  FuzzToken public immutable outputToken;
  address public immutable feeRecipient = address(0xFEE5);
  uint256 public immutable inputChainId;

  FuzzToken[N_TOKENS] public tokens;
  uint256[4] internal offererKeys = [uint256(0xA11CE), 0xB0B, 0xCA201, 0xD0C0];
  /// @dev offerers[3] is an EIP-1271 wallet whose owner key is offererKeys[3].
  address[4] public offerers;
  address[3] public fillers = [address(0xF111), address(0xF222), address(0xF333)];
  uint256[2] internal outputChains = [uint256(10), 8453];

  Order[] internal orders;
  bytes32[] public orderHashes;
  uint256 internal nonce;
  uint256 public currentTime;

  // Ghost books.
  mapping(bytes32 orderHash => uint8) public ghostStatus;
  mapping(bytes32 orderHash => uint256) public settledEvents;
  mapping(bytes32 orderHash => uint256) public refundedEvents;
  /// @notice A true proof of a fill made by fillDeadline was delivered while the deposit was Active.
  mapping(bytes32 orderHash => bool) public provenWhileActive;
  /// @notice What each account earned from the escrow per token: fillers input minus fee of their settled orders,
  /// the fee recipient the fees, offerers the input of their refunded orders.
  mapping(address token => mapping(address account => uint256)) public entitled;
  /// @notice Who filled each order through FerryFill (the filler of record the handler saw); zero while unfilled.
  mapping(bytes32 orderHash => address) public filledBy;
  /// @notice Whom the escrow paid for each settled order (the filler settleFills named), the fill time its proof
  /// carried, and whether that proof was true (named FerryFill's filler of record and fill time).
  mapping(bytes32 orderHash => address) public settledTo;
  mapping(bytes32 orderHash => uint256) public settledFillTime;
  mapping(bytes32 orderHash => bool) public settledByTrueProof;
  /// @notice Coverage: deposits made through open() and openFor(), fills by someone other than the exclusive
  /// filler, settlements paying someone other than the exclusive filler.
  uint256 public opens;
  uint256 public openFors;
  uint256 public fillsByOthers;
  uint256 public settlementsToOthers;
  /// @notice Accepted deposits whose fillDeadline + settleGrace overflows (refund could never open).
  uint256 public overflowingDeposits;
  uint256 public violations;
  string public firstViolation;

  constructor() {
    inputChainId = block.chainid;
    currentTime = block.timestamp;
    escrow = new FerryEscrow(address(this), GRACE, feeRecipient, FEE_BPS);
    fillContract = new FerryFill();
    tokens[0] = new FuzzToken(FuzzToken.Kind.Plain, "Plain");
    tokens[1] = new FuzzToken(FuzzToken.Kind.Blacklisting, "Blacklisting");
    tokens[2] = new FuzzToken(FuzzToken.Kind.Pausing, "Pausing");
    tokens[3] = new FuzzToken(FuzzToken.Kind.FeeOnTransfer, "FeeOnTransfer");
    for (uint256 i = 0; i < N_TOKENS; ++i) {
      tokens[i].watch(address(escrow));
    }
    outputToken = new FuzzToken(FuzzToken.Kind.Plain, "Output");
    for (uint256 i = 0; i < 3; ++i) {
      offerers[i] = vm.addr(offererKeys[i]);
    }
    offerers[3] = address(new ContractOfferer(vm.addr(offererKeys[3])));
  }

  // ---------------------------------------------------------------- views for the invariants

  function orderCount() external view returns (uint256) {
    return orders.length;
  }

  /// @notice The ghost books of every deposit, in deposit order (one call per invariant check).
  function ledger()
    external
    view
    returns (
      bytes32[] memory hashes,
      uint8[] memory ghost,
      uint256[] memory settled,
      uint256[] memory refunded,
      bool[] memory proven
    )
  {
    uint256 n = orderHashes.length;
    (hashes, ghost, settled, refunded, proven) =
    (orderHashes, new uint8[](n), new uint256[](n), new uint256[](n), new bool[](n));
    for (uint256 i = 0; i < n; ++i) {
      bytes32 h = hashes[i];
      (ghost[i], settled[i], refunded[i], proven[i]) =
      (ghostStatus[h], settledEvents[h], refundedEvents[h], provenWhileActive[h]);
    }
  }

  /// @notice The inputs of `token`'s deposits that the escrow reports Active.
  function activeInputs(address token_) external view returns (uint256 sum) {
    for (uint256 i = 0; i < orders.length; ++i) {
      if (orders[i].inputToken == token_ && escrow.orderStatus(orderHashes[i]) == 1) sum += orders[i].inputAmount;
    }
  }

  function entitledOf(address token_, address[] calldata list) external view returns (uint256[] memory amounts) {
    amounts = new uint256[](list.length);
    for (uint256 i = 0; i < list.length; ++i) {
      amounts[i] = entitled[token_][list[i]];
    }
  }

  function token(uint256 i) external view returns (FuzzToken) {
    return tokens[i];
  }

  /// @notice Everyone the escrow may ever pay: the fillers, the offerers and the fee recipient.
  function accounts() public view returns (address[] memory list) {
    list = new address[](8);
    for (uint256 i = 0; i < 4; ++i) {
      list[i] = offerers[i];
    }
    for (uint256 i = 0; i < 3; ++i) {
      list[4 + i] = fillers[i];
    }
    list[7] = feeRecipient;
  }

  // ---------------------------------------------------------------- book-keeping

  /// @dev Another of the three fillers (the first one for the zero address).
  function _otherFiller(address filler) internal view returns (address) {
    for (uint256 i = 0; i < 3; ++i) {
      if (fillers[i] == filler) return fillers[(i + 1) % 3];
    }
    return fillers[0];
  }

  /// @dev The filler a proof of orders[i] names: its filler of record once filled, its exclusive filler before.
  function _recordedFiller(uint256 i) internal view returns (address) {
    address by = filledBy[orderHashes[i]];
    return by != address(0) ? by : orders[i].filler;
  }

  /// @notice What the invariants check of deposit i's settlement: its status, whom it paid and the fill time its
  /// proof carried, the exclusivity it was deposited with, whether a true proof settled it and who filled it.
  function settlementOf(uint256 i)
    external
    view
    returns (
      uint8 status,
      address payee,
      uint256 fillTime,
      address exclusiveFiller,
      uint256 exclusivityDeadline,
      uint256 fillDeadline,
      bool byTrueProof,
      address fillerOfRecord
    )
  {
    bytes32 h = orderHashes[i];
    Order storage o = orders[i];
    return (
      escrow.orderStatus(h),
      settledTo[h],
      settledFillTime[h],
      o.filler,
      o.exclusivityDeadline,
      o.fillDeadline,
      settledByTrueProof[h],
      fillContract.fillerOf(h)
    );
  }

  function _min(uint256 a, uint256 b) internal pure returns (uint256) {
    return a < b ? a : b;
  }

  function _tokenIndex(address t) internal view returns (uint256) {
    for (uint256 i = 0; i < N_TOKENS; ++i) {
      if (address(tokens[i]) == t) return i;
    }
    return 0;
  }

  /// @dev The index of an order with the same recorded filler (see _recordedFiller) and output chain as orders[first],
  /// near `seed` (or `first` itself): what one proof message of one filler of record can carry.
  function _sameRoute(uint256 first, uint256 seed) internal view returns (uint256) {
    address filler = _recordedFiller(first);
    uint256 chain = orders[first].outputChainId;
    for (uint256 k = 0; k < orders.length; ++k) {
      uint256 i = (seed % orders.length + k) % orders.length;
      if (_recordedFiller(i) == filler && orders[i].outputChainId == chain) return i;
    }
    return first;
  }

  function _orderOf(bytes32 h) internal view returns (Order memory) {
    for (uint256 i = 0; i < orderHashes.length; ++i) {
      if (orderHashes[i] == h) return orders[i];
    }
    revert("unknown order");
  }

  /// @dev Whether some proof of the batch for `h` has `flag` set (a true proof, an admissible one).
  function _anyOf(bytes32[] memory hashes, bool[] memory flag, bytes32 h) internal pure returns (bool) {
    for (uint256 i = 0; i < hashes.length; ++i) {
      if (hashes[i] == h && flag[i]) return true;
    }
    return false;
  }

  function _countEndings(Vm.Log[] memory logs) internal {
    for (uint256 i = 0; i < logs.length; ++i) {
      if (logs[i].emitter != address(escrow) || logs[i].topics.length < 2) continue;
      if (logs[i].topics[0] == FerryEscrow.Settled.selector) ++settledEvents[logs[i].topics[1]];
      else if (logs[i].topics[0] == FerryEscrow.Refunded.selector) ++refundedEvents[logs[i].topics[1]];
    }
  }

  function _expect(bool condition, string memory what) internal {
    if (!condition) _violation(what);
  }

  function _violation(string memory what) internal {
    if (violations++ == 0) firstViolation = what;
  }
}
