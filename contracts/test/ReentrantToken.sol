// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @notice Test-only ERC-20 that, once armed, calls back into a contract from inside its next transfer or
/// transferFrom (as a malicious token would) and records how that call ended, so a test can check that Ferry's
/// reentrancy guards refused it. The transfer itself still moves the balances, so the outer call can succeed.
contract ReentrantToken {
  event Transfer(address indexed from, address indexed to, uint256 value);

  uint8 public constant decimals = 6;
  mapping(address account => uint256) public balanceOf;

  address public target;
  bytes public reentryCall;
  /// @notice Whether the armed call happened, whether it succeeded, and what it returned (a revert's data).
  bool public reentered;
  bool public reentrySucceeded;
  bytes public reentryAnswer;

  function mint(address to, uint256 amount) external {
    balanceOf[to] += amount;
  }

  function approve(address, uint256) external pure returns (bool) {
    return true;
  }

  function arm(address target_, bytes calldata call) external {
    target = target_;
    reentryCall = call;
  }

  function transfer(address to, uint256 amount) external returns (bool) {
    _move(msg.sender, to, amount);
    return true;
  }

  function transferFrom(address from, address to, uint256 amount) external returns (bool) {
    _move(from, to, amount);
    return true;
  }

  function _move(address from, address to, uint256 amount) private {
    balanceOf[from] -= amount;
    balanceOf[to] += amount;
    emit Transfer(from, to, amount);
    address callee = target;
    if (callee == address(0)) return;
    target = address(0);
    reentered = true;
    (reentrySucceeded, reentryAnswer) = callee.call(reentryCall);
  }
}
