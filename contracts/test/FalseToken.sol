// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @notice Test-only ERC-20 that signals failure by returning false instead of reverting (as some early
/// tokens do). Contracts that ignore the return value would treat a failed transferFrom as a payment.
contract FalseToken {
  event Transfer(address indexed from, address indexed to, uint256 value);

  uint8 public constant decimals = 6;
  mapping(address account => uint256) public balanceOf;
  mapping(address owner => mapping(address spender => uint256)) public allowance;

  function mint(address to, uint256 amount) external {
    balanceOf[to] += amount;
  }

  function approve(address spender, uint256 amount) external returns (bool) {
    allowance[msg.sender][spender] = amount;
    return true;
  }

  function transfer(address to, uint256 amount) external returns (bool) {
    return _move(msg.sender, to, amount);
  }

  function transferFrom(address from, address to, uint256 amount) external returns (bool) {
    if (allowance[from][msg.sender] < amount) return false;
    allowance[from][msg.sender] -= amount;
    return _move(from, to, amount);
  }

  function _move(address from, address to, uint256 amount) private returns (bool) {
    if (balanceOf[from] < amount) return false;
    balanceOf[from] -= amount;
    balanceOf[to] += amount;
    emit Transfer(from, to, amount);
    return true;
  }
}
