// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice A fill messenger carries "order X was filled" from the output chain to the input chain.
/// @dev The escrow only knows the messenger's address, so any implementation can be swapped in when a new
/// escrow is deployed: the AttesterMessenger (an off-chain attester key signs the proof) or a cross-chain
/// messaging endpoint (e.g. a LayerZero OApp whose lzReceive decodes the orderHash sent by the fill
/// contract). Whatever the transport, an implementation must call IFerrySettlement(escrow).settle(orderHash)
/// only once it is convinced the fill happened, and should emit FillRelayed for indexers.
interface IFillMessenger {
  event FillRelayed(address indexed escrow, bytes32 indexed orderHash);
}
