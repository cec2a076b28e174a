// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {FerryOrder, FillProof, Order} from "./lib/FerryOrder.sol";
import {IFerrySettlement} from "./interfaces/IFerrySettlement.sol";
import {IFerrySettler} from "./interfaces/IFerrySettler.sol";

/// @title AttesterMessenger
/// @notice Input-chain settler for chains LayerZero does not reach, backed by a single attester key held by the
/// Ferry operator. The attester watches the output chain and signs an EIP-712 FillAttestation once a correct fill
/// is final; anyone may relay that signature here (the filler too: Ferry hands it the attestation), which settles
/// the order in the escrow. Opt-in per chain: this trusts the attester, see docs/trust-model.md.
contract AttesterMessenger is IFerrySettler {
  event FillRelayed(address indexed escrow, bytes32 indexed orderHash);

  error WrongAttester();

  bytes32 public constant FILL_ATTESTATION_TYPEHASH = keccak256(
    "FillAttestation(address escrow,uint256 inputChainId,bytes32 orderHash,address filler,uint256 fillTime)"
  );
  bytes32 private constant DOMAIN_TYPEHASH =
    keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");

  /// @notice Immutable on purpose: rotating the key means deploying a new messenger (and escrow), so an
  /// attacker cannot swap the attester through some admin path.
  address public immutable attester;

  uint256 private immutable deployChainId;
  bytes32 private immutable cachedDomainSeparator;

  constructor(address attester_) {
    attester = attester_;
    deployChainId = block.chainid;
    cachedDomainSeparator = _domainSeparator();
  }

  function DOMAIN_SEPARATOR() public view returns (bytes32) {
    return block.chainid == deployChainId ? cachedDomainSeparator : _domainSeparator();
  }

  /// @inheritdoc IFerrySettler
  /// @dev The attester's output chains run FerryFill alone, which has no ERC-7683 fill: no destination settler.
  function destinationSettlerOf(uint256) external pure returns (bytes32) {
    return bytes32(0);
  }

  /// @notice The digest the attester signs for the fill of `orderHash` (held by `escrow` on this chain) by
  /// `filler` at block time `fillTime`.
  function attestationDigest(address escrow, bytes32 orderHash, address filler, uint256 fillTime)
    public
    view
    returns (bytes32)
  {
    bytes32 structHash =
      keccak256(abi.encode(FILL_ATTESTATION_TYPEHASH, escrow, block.chainid, orderHash, filler, fillTime));
    return keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
  }

  /// @notice Settles `order` in `escrow` with the attester's signature over its fill by `filler` (the filler of
  /// record, whom FerryFill's Filled event names). Anyone may relay.
  /// @dev The escrow is a parameter so messenger and escrow can be deployed without a circular dependency; the
  /// signature binds it, so a relayer cannot redirect an attestation. A replay settles nothing: the escrow skips
  /// orders that are no longer Active.
  function relayFill(
    address escrow,
    Order calldata order,
    address filler,
    uint256 fillTime,
    bytes calldata signature
  ) external {
    bytes32 orderHash = FerryOrder.hash(order, escrow);
    bytes32 digest = attestationDigest(escrow, orderHash, filler, fillTime);
    if (ECDSA.recoverCalldata(digest, signature) != attester) revert WrongAttester();
    FillProof[] memory proofs = new FillProof[](1);
    proofs[0] = FerryOrder.proofOf(order, orderHash, fillTime);
    // The orderHash binds every field of `order`, the attester's signature binds the orderHash and the filler of
    // record: the output chain is the order's own.
    IFerrySettlement(escrow).settleFills(order.outputChainId, filler, proofs);
    emit FillRelayed(escrow, orderHash);
  }

  function _domainSeparator() private view returns (bytes32) {
    return keccak256(
      abi.encode(DOMAIN_TYPEHASH, keccak256("Ferry Attester"), keccak256("1"), block.chainid, address(this))
    );
  }
}
