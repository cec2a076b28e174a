// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "../interfaces/IERC20.sol";

/// @notice ERC-20 transfers that work with the three token behaviours seen in the wild:
/// revert on failure, return false on failure, or return nothing at all (e.g. mainnet USDT).
library SafeTransfer {
  error TransferFailed(address token);

  function safeTransfer(address token, address to, uint256 amount) internal {
    _call(token, abi.encodeCall(IERC20.transfer, (to, amount)));
  }

  function safeTransferFrom(address token, address from, address to, uint256 amount) internal {
    _call(token, abi.encodeCall(IERC20.transferFrom, (from, to, amount)));
  }

  function _call(address token, bytes memory data) private {
    (bool ok, bytes memory ret) = token.call(data);
    if (!ok) revert TransferFailed(token);
    if (ret.length == 0) {
      // A call to an address without code also "succeeds" with empty return data; without this check a
      // deposit of a non-existent token would be recorded as funded.
      if (token.code.length == 0) revert TransferFailed(token);
    } else if (ret.length < 32 || abi.decode(ret, (uint256)) != 1) {
      revert TransferFailed(token);
    }
  }
}
