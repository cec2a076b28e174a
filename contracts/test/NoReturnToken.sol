// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @notice Test-only ERC-20 whose transfer/transferFrom return nothing (like mainnet USDT) and revert on
/// failure. A contract that insists on decoding a bool would be unable to use it at all.
contract NoReturnToken {
  event Transfer(address indexed from, address indexed to, uint256 value);

  uint8 public constant decimals = 6;
  mapping(address account => uint256) public balanceOf;
  mapping(address owner => mapping(address spender => uint256)) public allowance;

  function mint(address to, uint256 amount) external {
    balanceOf[to] += amount;
  }

  function approve(address spender, uint256 amount) external {
    allowance[msg.sender][spender] = amount;
  }

  function transfer(address to, uint256 amount) external {
    _move(msg.sender, to, amount);
  }

  function transferFrom(address from, address to, uint256 amount) external {
    allowance[from][msg.sender] -= amount;
    _move(from, to, amount);
  }

  function _move(address from, address to, uint256 amount) private {
    balanceOf[from] -= amount;
    balanceOf[to] += amount;
    emit Transfer(from, to, amount);
  }
}
