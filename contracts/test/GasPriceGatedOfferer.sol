// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

interface IApprove {
  function approve(address spender, uint256 amount) external returns (bool);
}

/// @notice Test-only EIP-1271 offerer that answers a call priced at zero differently from a mined transaction:
/// while `gated`, isValidSignature gives the magic value only when tx.gasprice == 0 (a simulation or gas estimate
/// without fees), so the deposit passes such a check and reverts on chain. Its owner and a second account of the
/// attacker's switch the gate at will: one gates it ahead of a deposit that passed any simulation, the other (from
/// another sender, so a block can order it after the deposit) ungates it behind.
contract GasPriceGatedOfferer {
  bytes4 private constant MAGIC = 0x1626ba7e;
  address public immutable owner;
  address public immutable accomplice;
  bool public gated;

  constructor(address accomplice_) {
    owner = msg.sender;
    accomplice = accomplice_;
  }

  modifier onlyOwner() {
    require(msg.sender == owner, "owner");
    _;
  }

  function setGated(bool on) external {
    require(msg.sender == owner || msg.sender == accomplice, "owner");
    gated = on;
  }

  function approve(address token, address spender, uint256 amount) external onlyOwner {
    require(IApprove(token).approve(spender, amount), "approve");
  }

  function isValidSignature(bytes32, bytes calldata) external view returns (bytes4) {
    if (gated && tx.gasprice != 0) return 0xffffffff;
    return MAGIC;
  }
}
