// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {FerryEscrow} from "../../FerryEscrow.sol";
import {FerryFill} from "../../FerryFill.sol";
import {FillProof, Order} from "../../lib/FerryOrder.sol";
import {IFerrySettler} from "../../interfaces/IFerrySettler.sol";
import {GaslessCrossChainOrder, OnchainCrossChainOrder} from "../../interfaces/IERC7683.sol";
import {FerryTest} from "./FerryTest.sol";
import {FuzzToken} from "./FuzzToken.sol";
import {Vm, vm} from "./Vm.sol";

/// @notice One escrow, its fill contract and a plain input token, with this contract as the escrow's settler: it
/// delivers FillProofs as FerryApp does after a verified message, and names FerryApp's address on OUTPUT_CHAIN as
/// the destination settler (IFerrySettler) for the orders' ERC-7683 fill instructions. The escrow charges FEE_BPS
/// unless a test redeploys it with another fee (_useFeeBps). Shared by the fuzz suites of one order's life.
abstract contract EscrowFixture is FerryTest, IFerrySettler {
  uint256 internal constant GRACE = 1 hours;
  uint256 internal constant OFFERER_KEY = 0xA11CE;
  uint256 internal constant OUTPUT_CHAIN = 10;
  uint256 internal constant FEE_BPS = 30;
  address internal constant FILLER = address(0xF111);
  address internal constant FEE_RECIPIENT = address(0xFEE);
  bytes32 internal constant DESTINATION_SETTLER = bytes32(uint256(0xDE57));

  FerryEscrow internal escrow;
  FerryFill internal fillContract;
  FuzzToken internal token;
  FuzzToken internal outputToken;
  address internal offerer;

  function setUp() public {
    vm.warp(1_700_000_000);
    escrow = new FerryEscrow(address(this), GRACE, FEE_RECIPIENT, FEE_BPS);
    fillContract = new FerryFill();
    token = new FuzzToken(FuzzToken.Kind.Plain, "Input");
    outputToken = new FuzzToken(FuzzToken.Kind.Plain, "Output");
    offerer = vm.addr(OFFERER_KEY);
  }

  /// @inheritdoc IFerrySettler
  function destinationSettlerOf(uint256 chainId) external pure returns (bytes32) {
    return chainId == OUTPUT_CHAIN ? DESTINATION_SETTLER : bytes32(0);
  }

  // ---------------------------------------------------------------- helpers

  /// @dev Redeploys the escrow (before any deposit) with a fee of `seed` bounded to 0..10000 bps, 100% included.
  function _useFeeBps(uint256 seed) internal returns (uint256 bps) {
    bps = _bound(seed, 0, 10_000);
    escrow = new FerryEscrow(address(this), GRACE, FEE_RECIPIENT, bps);
  }

  /// @dev The protocol fee the escrow requires of an input: its bps, rounded down.
  function _fee(uint256 amount) internal view returns (uint256) {
    return amount * escrow.protocolFeeBps() / 10_000;
  }

  /// @dev An order of FILLER (exclusive for its whole window) with the escrow's fee, funded and approved.
  function _fundedOrder(uint256 amount, uint256 fillIn, uint256 nonce) internal returns (Order memory o) {
    amount = _bound(amount, 1, 1e30);
    o = _order(offerer, address(token), FILLER, amount, _fee(amount), _bound(fillIn, 0, 30 days), nonce);
    _fund(o);
  }

  function _fund(Order memory o) internal {
    token.mint(o.offerer, o.inputAmount);
    uint256 allowance = token.allowance(o.offerer, address(escrow));
    vm.prank(o.offerer);
    token.approve(address(escrow), allowance + o.inputAmount);
  }

  function _deposit(Order memory o) internal returns (bytes32) {
    return escrow.deposit(o, _sign(escrow, OFFERER_KEY, o));
  }

  /// @dev The proof FerryApp sends for `o`'s fill at `fillTime` (its exclusivity as the order states it).
  function _proof(Order memory o, uint256 fillTime) internal view returns (FillProof memory) {
    return FillProof({
      orderHash: escrow.hashOrder(o),
      inputToken: o.inputToken,
      inputAmount: o.inputAmount,
      protocolFee: o.protocolFee,
      fillDeadline: o.fillDeadline,
      exclusiveFiller: o.filler,
      exclusivityDeadline: o.exclusivityDeadline,
      fillTime: fillTime
    });
  }

  function _settle(uint256 outputChainId, address filler, FillProof memory proof) internal {
    FillProof[] memory proofs = new FillProof[](1);
    proofs[0] = proof;
    escrow.settleFills(outputChainId, filler, proofs);
  }

  /// @dev `caller` fills `o` through FerryFill on the output chain (funded and approved), back on the input chain
  /// after; reverts with FerryFill's error when the fill is refused.
  function _fillAs(address caller, Order memory o) internal returns (bytes32 orderHash) {
    outputToken.mint(caller, o.outputAmount);
    vm.prank(caller);
    outputToken.approve(address(fillContract), o.outputAmount);
    uint256 inputChain = block.chainid;
    vm.chainId(o.outputChainId);
    vm.prank(caller);
    orderHash = fillContract.fill(o, address(escrow));
    vm.chainId(inputChain);
  }

  // ---------------------------------------------------------------- ERC-7683 orders

  function _onchain(Order memory o) internal view returns (OnchainCrossChainOrder memory) {
    return OnchainCrossChainOrder(uint32(o.fillDeadline), escrow.ORDER_TYPEHASH(), abi.encode(o));
  }

  function _gasless(Order memory o) internal view returns (GaslessCrossChainOrder memory) {
    return GaslessCrossChainOrder({
      originSettler: address(escrow),
      user: o.offerer,
      nonce: o.nonce,
      originChainId: o.inputChainId,
      openDeadline: uint32(o.openDeadline),
      fillDeadline: uint32(o.fillDeadline),
      orderDataType: escrow.ORDER_TYPEHASH(),
      orderData: abi.encode(o)
    });
  }

  // ---------------------------------------------------------------- helpers over logs and fees

  /// @dev The reason of the SettleSkipped event for `orderHash` among the recorded logs (reverts when none).
  function _skipReason(bytes32 orderHash) internal returns (uint256) {
    Vm.Log[] memory logs = vm.getRecordedLogs();
    for (uint256 i = 0; i < logs.length; ++i) {
      if (logs[i].topics[0] == FerryEscrow.SettleSkipped.selector && logs[i].topics[1] == orderHash) {
        return abi.decode(logs[i].data, (uint256));
      }
    }
    revert("no SettleSkipped");
  }

  function _feesPaidOrOwed() internal view returns (uint256) {
    return token.balanceOf(FEE_RECIPIENT) + _owed(FEE_RECIPIENT);
  }

  function _owedInEscrow() internal view returns (uint256) {
    return _owed(FEE_RECIPIENT) + _owed(FILLER) + _owed(offerer);
  }

  function _owed(address account) internal view returns (uint256) {
    return escrow.owed(address(token), account);
  }
}
