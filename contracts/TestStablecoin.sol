// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// @title TestStablecoin
/// @notice A devnet-only 6-decimal ERC-20 with EIP-2612 permit. The deployer can mint at will, so this
/// token must never be deployed anywhere its balances are supposed to mean something. Like USDC, the owner can
/// pause every transfer, so settlement against a paused token can be tested.
contract TestStablecoin {
  event Transfer(address indexed from, address indexed to, uint256 value);
  event Approval(address indexed owner, address indexed spender, uint256 value);

  error NotOwner();
  error InsufficientBalance();
  error InsufficientAllowance();
  error PermitExpired();
  error InvalidPermit();
  error Paused();

  bytes32 private constant PERMIT_TYPEHASH =
    keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");
  bytes32 private constant DOMAIN_TYPEHASH =
    keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");

  string public name;
  string public symbol;
  uint8 public constant decimals = 6;
  uint256 public totalSupply;
  address public immutable owner;
  bool public paused;

  mapping(address account => uint256) public balanceOf;
  mapping(address owner => mapping(address spender => uint256)) public allowance;
  mapping(address owner => uint256) public nonces;

  // The domain separator is cached for the deployment chain and recomputed after a fork, so a permit
  // signed for one chain can never be replayed on a fork with a different chain id.
  uint256 private immutable deployChainId;
  bytes32 private immutable cachedDomainSeparator;

  constructor(string memory name_, string memory symbol_) {
    name = name_;
    symbol = symbol_;
    owner = msg.sender;
    deployChainId = block.chainid;
    cachedDomainSeparator = _domainSeparator();
  }

  function DOMAIN_SEPARATOR() public view returns (bytes32) {
    return block.chainid == deployChainId ? cachedDomainSeparator : _domainSeparator();
  }

  function mint(address to, uint256 amount) external {
    if (msg.sender != owner) revert NotOwner();
    totalSupply += amount;
    // Cannot overflow: totalSupply bounds every balance.
    unchecked {
      balanceOf[to] += amount;
    }
    emit Transfer(address(0), to, amount);
  }

  function pause() external {
    if (msg.sender != owner) revert NotOwner();
    paused = true;
  }

  function unpause() external {
    if (msg.sender != owner) revert NotOwner();
    paused = false;
  }

  function approve(address spender, uint256 amount) external returns (bool) {
    _approve(msg.sender, spender, amount);
    return true;
  }

  function transfer(address to, uint256 amount) external returns (bool) {
    _transfer(msg.sender, to, amount);
    return true;
  }

  function transferFrom(address from, address to, uint256 amount) external returns (bool) {
    uint256 allowed = allowance[from][msg.sender];
    // type(uint256).max means "unlimited" and is not decremented, as in most production tokens.
    if (allowed != type(uint256).max) {
      if (allowed < amount) revert InsufficientAllowance();
      unchecked {
        allowance[from][msg.sender] = allowed - amount;
      }
    }
    _transfer(from, to, amount);
    return true;
  }

  /// @notice EIP-2612: approve `spender` with an off-chain signature by `owner_`.
  function permit(address owner_, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
    external
  {
    if (block.timestamp > deadline) revert PermitExpired();
    bytes32 structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner_, spender, value, nonces[owner_]++, deadline));
    bytes32 digest = keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
    if (ECDSA.recover(digest, v, r, s) != owner_) revert InvalidPermit();
    _approve(owner_, spender, value);
  }

  function _approve(address owner_, address spender, uint256 amount) private {
    allowance[owner_][spender] = amount;
    emit Approval(owner_, spender, amount);
  }

  function _transfer(address from, address to, uint256 amount) private {
    if (paused) revert Paused();
    uint256 balance = balanceOf[from];
    if (balance < amount) revert InsufficientBalance();
    unchecked {
      balanceOf[from] = balance - amount;
      balanceOf[to] += amount;
    }
    emit Transfer(from, to, amount);
  }

  function _domainSeparator() private view returns (bytes32) {
    return keccak256(
      abi.encode(DOMAIN_TYPEHASH, keccak256(bytes(name)), keccak256("1"), block.chainid, address(this))
    );
  }
}
