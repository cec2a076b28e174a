// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {OApp, Origin, MessagingFee, MessagingReceipt} from "@layerzerolabs/oapp-evm/contracts/oapp/OApp.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {FerryFill} from "./FerryFill.sol";
import {FerryOrder, FillProof, Order} from "./lib/FerryOrder.sol";
import {IFerrySettlement} from "./interfaces/IFerrySettlement.sol";
import {IFerrySettler} from "./interfaces/IFerrySettler.sol";
import {IDestinationSettler} from "./interfaces/IERC7683.sol";

/// @title FerryApp
/// @notice Ferry's LayerZero V2 app, one per chain. As the output side it records fills (FerryFill) and proves
/// them with a message to its peer on the order's input chain; as the input side it is its escrow's only
/// settler, and settles exactly what a verified message from a configured peer proves.
/// It is also an ERC-7683 destination settler: fill(orderId, originData, fillerData) fills the order an escrow's
/// Open event (or resolve) hands out, and proves it too when fillerData carries LayerZero options.
/// @dev Proving is permissionless: the filler proves in its fill transaction (fillAndProve) or later (prove), and
/// anyone else (Ferry's worker as a fallback) may prove a recorded fill, paying the messaging fee. A proof only
/// repeats facts this contract recorded itself (the filler of record included), so a prover can choose which
/// fills to prove, never what they say.
/// After wiring, the owner renounces ownership and the endpoint delegate is cleared, so no key can change the
/// peers, the escrow or the verifier configuration.
contract FerryApp is FerryFill, OApp, IFerrySettler, IDestinationSettler {
  event ProofSent(bytes32 indexed guid, uint32 indexed dstEid, bytes32[] orderHashes);
  event ProofDelivered(bytes32 indexed guid, uint32 indexed srcEid, uint256 proofs);

  error NoRoute(uint256 chainId);
  error InvalidRoute(uint256 chainId, uint32 eid);
  error NotFilled(bytes32 orderHash);
  error EmptyProof();
  error MixedBatch();
  error EscrowAlreadySet();
  error WrongEscrow(address escrow);
  /// @notice A verified message came from an endpoint id no route maps to a chain id (so none of its fills can be
  /// matched to an output chain).
  error WrongSource(uint32 srcEid);
  /// @notice fill(orderId, …): originData's order does not hash to orderId.
  error WrongOrderId(bytes32 orderHash);
  /// @notice fill(orderId, …) with empty fillerData only fills: it takes no native value.
  error NoValue();

  /// @notice This chain's escrow, which this app settles. Set once, before ownership is renounced.
  IFerrySettlement public escrow;

  /// @notice The LayerZero endpoint id of each chain this app has a peer on.
  mapping(uint256 chainId => uint32 eid) public eidOf;

  /// @notice The chain id behind each endpoint id eidOf maps to: the output chain of every fill a message from that
  /// endpoint proves.
  mapping(uint32 eid => uint256 chainId) public chainIdOf;

  constructor(address endpoint_, address owner_) OApp(endpoint_, owner_) Ownable(owner_) {}

  function setEscrow(address escrow_) external onlyOwner {
    if (address(escrow) != address(0)) revert EscrowAlreadySet();
    escrow = IFerrySettlement(escrow_);
  }

  /// @dev An eid names one chain: pointing a second chain at it would leave the first's proofs going to the wrong
  /// app, with no owner left to fix it once ownership is renounced.
  function setRoute(uint256 chainId, uint32 eid) external onlyOwner {
    if (eid == 0 || chainId == 0) revert InvalidRoute(chainId, eid);
    uint256 taken = chainIdOf[eid];
    if (taken != 0 && taken != chainId) revert InvalidRoute(chainId, eid);
    delete chainIdOf[eidOf[chainId]];
    eidOf[chainId] = eid;
    chainIdOf[eid] = chainId;
  }

  /// @inheritdoc IFerrySettler
  function destinationSettlerOf(uint256 chainId) external view returns (bytes32) {
    uint32 eid = eidOf[chainId];
    return eid == 0 ? bytes32(0) : peers[eid];
  }

  // ---------------------------------------------------------------- output side

  /// @notice ERC-7683 fill: `originData` is the fill instruction's, abi.encode(order, escrow); the caller becomes the
  /// filler of record. Empty `fillerData` fills only (the proof follows from prove, by the filler or anyone);
  /// otherwise `fillerData` is the LayerZero options to prove with in the same call, `msg.value` paying the fee
  /// (quoteProve), as fillAndProve.
  function fill(bytes32 orderId, bytes calldata originData, bytes calldata fillerData)
    external
    payable
    nonReentrant
  {
    Order calldata order = FerryOrder.fromCalldata(originData, 1);
    address escrow_ = abi.decode(originData[0x1c0:], (address));
    bytes32 orderHash = FerryOrder.hash(order, escrow_);
    if (orderHash != orderId) revert WrongOrderId(orderHash);
    if (fillerData.length == 0) {
      if (msg.value != 0) revert NoValue();
      _fill(order, escrow_);
      return;
    }
    _fillAndProve(order, escrow_, fillerData);
  }

  /// @notice Fills `order` and proves the fill to the input chain in the same transaction. `msg.value` pays the
  /// messaging fee (quoteProve); any excess is refunded to the caller by the endpoint.
  function fillAndProve(Order calldata order, address escrow_, bytes calldata options)
    external
    payable
    nonReentrant
    returns (bytes32 guid)
  {
    return _fillAndProve(order, escrow_, options);
  }

  function _fillAndProve(Order calldata order, address escrow_, bytes calldata options) private returns (bytes32) {
    bytes32 orderHash = _fill(order, escrow_);
    FillProof[] memory proofs = new FillProof[](1);
    proofs[0] = FerryOrder.proofOf(order, orderHash, block.timestamp);
    bytes32[] memory hashes = new bytes32[](1);
    hashes[0] = orderHash;
    return _sendProofs(order.inputChainId, escrow_, msg.sender, proofs, hashes, options);
  }

  /// @notice Proves recorded fills of one filler of record, for orders of one input chain and escrow, in one message.
  function prove(Order[] calldata orders, address escrow_, bytes calldata options)
    external
    payable
    nonReentrant
    returns (bytes32 guid)
  {
    (FillProof[] memory proofs, bytes32[] memory hashes, address filler) = _proofs(orders, escrow_, true);
    return _sendProofs(orders[0].inputChainId, escrow_, filler, proofs, hashes, options);
  }

  /// @notice The native fee prove() would need for `orders` (unfilled orders are quoted as if filled now, so a
  /// filler can quote fillAndProve before filling).
  function quoteProve(Order[] calldata orders, address escrow_, bytes calldata options)
    external
    view
    returns (uint256 nativeFee)
  {
    (FillProof[] memory proofs,, address filler) = _proofs(orders, escrow_, false);
    uint32 eid = _route(orders[0].inputChainId);
    return _quote(eid, abi.encode(escrow_, filler, proofs), options, false).nativeFee;
  }

  /// @dev `filler` is the filler of record every recorded fill shares; unfilled orders (quoted only) count as
  /// filled now by their exclusive filler, which does not change the message's size or fee.
  function _proofs(Order[] calldata orders, address escrow_, bool filledOnly)
    private
    view
    returns (FillProof[] memory proofs, bytes32[] memory hashes, address filler)
  {
    if (orders.length == 0) revert EmptyProof();
    proofs = new FillProof[](orders.length);
    hashes = new bytes32[](orders.length);
    for (uint256 i = 0; i < orders.length; ++i) {
      Order calldata order = orders[i];
      bytes32 orderHash = FerryOrder.hash(order, escrow_);
      uint256 recorded = fills[orderHash];
      if (recorded == 0) {
        if (filledOnly) revert NotFilled(orderHash);
        recorded = uint256(uint160(order.filler)) | (block.timestamp << 160);
      }
      // One filler and one route per message, so one party's token trouble never holds back another's payment.
      if (i == 0) filler = address(uint160(recorded));
      if (address(uint160(recorded)) != filler || order.inputChainId != orders[0].inputChainId) revert MixedBatch();
      proofs[i] = FerryOrder.proofOf(order, orderHash, recorded >> 160);
      hashes[i] = orderHash;
    }
  }

  function _route(uint256 chainId) private view returns (uint32 eid) {
    eid = eidOf[chainId];
    if (eid == 0) revert NoRoute(chainId);
  }

  function _sendProofs(
    uint256 inputChainId,
    address escrow_,
    address filler,
    FillProof[] memory proofs,
    bytes32[] memory hashes,
    bytes calldata options
  ) private returns (bytes32) {
    uint32 eid = _route(inputChainId);
    MessagingReceipt memory receipt =
      _lzSend(eid, abi.encode(escrow_, filler, proofs), options, MessagingFee(msg.value, 0), payable(msg.sender));
    emit ProofSent(receipt.guid, eid, hashes);
    return receipt.guid;
  }

  // ---------------------------------------------------------------- input side

  /// @dev OApp has already checked that the endpoint calls and that the sender is the peer for origin.srcEid;
  /// the endpoint has checked the DVNs' verification and that the message was not delivered before. A peer only
  /// proves fills made on its own chain, so the output chain of every proof is the source's chain: the escrow
  /// settles a proof only if that chain, the filler and the proof's terms match the deposit's commitment.
  function _lzReceive(Origin calldata origin, bytes32 guid, bytes calldata message, address, bytes calldata)
    internal
    override
  {
    address escrow_ = abi.decode(message[0:32], (address));
    if (escrow_ != address(escrow) || escrow_.code.length == 0) revert WrongEscrow(escrow_);
    uint256 outputChainId = chainIdOf[origin.srcEid];
    if (outputChainId == 0) revert WrongSource(origin.srcEid);
    // The message is abi.encode(escrow, filler, FillProof[]); after its first word it is, byte for byte, the tail of
    // settleFills(outputChainId, filler, proofs)'s arguments (both heads are three words, so the array's offset is
    // the same). Forwarded as it is, the escrow's own ABI decoder checks it, and no copy is decoded here.
    (bool ok, bytes memory reason) = escrow_.call(
      abi.encodePacked(IFerrySettlement.settleFills.selector, outputChainId, message[32:])
    );
    if (!ok) {
      // The escrow credits a refused token transfer instead of reverting, so this is only an overflow of a run's
      // sum (a token near 2^256): the whole message reverts and stays executable.
      assembly ("memory-safe") {
        revert(add(reason, 32), mload(reason))
      }
    }
    uint256 offset = abi.decode(message[64:96], (uint256));
    emit ProofDelivered(guid, origin.srcEid, abi.decode(message[offset:offset + 32], (uint256)));
  }
}
