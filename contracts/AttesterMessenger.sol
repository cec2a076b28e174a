// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ECDSA} from "./lib/ECDSA.sol";
import {IFerrySettlement} from "./interfaces/IFerrySettlement.sol";
import {IFillMessenger} from "./interfaces/IFillMessenger.sol";

/// @title AttesterMessenger
/// @notice Input-chain messenger backed by a single attester key held by the Ferry operator. The attester
/// watches the output chain and signs an EIP-712 FillAttestation once a correct fill is final; anyone may
/// relay that signature here, which settles the order in the escrow. See docs/trust-model.md.
contract AttesterMessenger is IFillMessenger {
  error WrongAttester();

  bytes32 public constant FILL_ATTESTATION_TYPEHASH =
    keccak256("FillAttestation(address escrow,uint256 inputChainId,bytes32 orderHash)");
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

  /// @notice The digest the attester signs for `orderHash` held by `escrow` on this chain.
  function attestationDigest(address escrow, bytes32 orderHash) public view returns (bytes32) {
    bytes32 structHash = keccak256(abi.encode(FILL_ATTESTATION_TYPEHASH, escrow, block.chainid, orderHash));
    return keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
  }

  /// @notice Settles `orderHash` in `escrow` with the attester's signature. Anyone may relay.
  /// @dev The escrow is a parameter (rather than fixed at construction) so messenger and escrow can be
  /// deployed without a circular dependency; the signature binds it, so a relayer cannot redirect an
  /// attestation to another escrow. Replays fail in the escrow because the order is no longer Active.
  function relayFill(address escrow, bytes32 orderHash, bytes calldata signature) external {
    if (ECDSA.recover(attestationDigest(escrow, orderHash), signature) != attester) revert WrongAttester();
    IFerrySettlement(escrow).settle(orderHash);
    emit FillRelayed(escrow, orderHash);
  }

  function _domainSeparator() private view returns (bytes32) {
    return keccak256(
      abi.encode(DOMAIN_TYPEHASH, keccak256("Ferry Attester"), keccak256("1"), block.chainid, address(this))
    );
  }
}
