// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

// ERC-7683 (cross-chain intents), as the final ERC defines it: the structs, the Open event and the origin and
// destination settler interfaces. Addresses that may live on another chain are bytes32 (left-padded).

struct GaslessCrossChainOrder {
  address originSettler;
  address user;
  uint256 nonce;
  uint256 originChainId;
  uint32 openDeadline;
  uint32 fillDeadline;
  bytes32 orderDataType;
  bytes orderData;
}

struct OnchainCrossChainOrder {
  uint32 fillDeadline;
  bytes32 orderDataType;
  bytes orderData;
}

struct Output {
  bytes32 token;
  uint256 amount;
  bytes32 recipient;
  uint256 chainId;
}

struct FillInstruction {
  uint256 destinationChainId;
  bytes32 destinationSettler;
  bytes originData;
}

struct ResolvedCrossChainOrder {
  address user;
  uint256 originChainId;
  uint32 openDeadline;
  uint32 fillDeadline;
  bytes32 orderId;
  Output[] maxSpent;
  Output[] minReceived;
  FillInstruction[] fillInstructions;
}

interface IOriginSettler {
  event Open(bytes32 indexed orderId, ResolvedCrossChainOrder resolvedOrder);

  function openFor(GaslessCrossChainOrder calldata order, bytes calldata signature, bytes calldata originFillerData)
    external
    payable;

  function open(OnchainCrossChainOrder calldata order) external payable;

  function resolveFor(GaslessCrossChainOrder calldata order, bytes calldata originFillerData)
    external
    view
    returns (ResolvedCrossChainOrder memory);

  function resolve(OnchainCrossChainOrder calldata order) external view returns (ResolvedCrossChainOrder memory);
}

interface IDestinationSettler {
  function fill(bytes32 orderId, bytes calldata originData, bytes calldata fillerData) external payable;
}
