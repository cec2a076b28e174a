// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @notice A 6-decimal ERC-20 with EIP-2612 permit in the four shapes a stablecoin takes against the escrow: plain,
/// blacklisting (USDC/USDT: a listed account can neither send nor receive, nor move others' tokens), pausing (every
/// transfer reverts while paused) and fee-on-transfer (a fee, off until switched on, is burnt from what the
/// receiver gets). It also records every transfer out of one watched address (the escrow) gross, per receiver, so
/// a suite can check who the escrow ever paid whatever the token's fee took.
contract FuzzToken {
  enum Kind {
    Plain,
    Blacklisting,
    Pausing,
    FeeOnTransfer
  }

  event Transfer(address indexed from, address indexed to, uint256 value);
  event Approval(address indexed owner, address indexed spender, uint256 value);

  error NotAdmin();
  error WrongKind();
  error Blacklisted(address account);
  error Paused();
  error InsufficientBalance();
  error InsufficientAllowance();
  error PermitExpired();
  error InvalidPermit();

  bytes32 private constant PERMIT_TYPEHASH =
    keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");

  Kind public immutable kind;
  address public immutable admin;
  string public name;
  uint8 public constant decimals = 6;
  uint256 public totalSupply;

  mapping(address account => uint256) public balanceOf;
  mapping(address owner => mapping(address spender => uint256)) public allowance;
  mapping(address owner => uint256) public nonces;

  mapping(address account => bool) public blacklisted;
  bool public paused;
  /// @notice Fee in basis points of each transfer, burnt from what the receiver gets (FeeOnTransfer only).
  uint256 public feeBps;

  address public watched;
  /// @notice Gross amount the watched address ever sent to each receiver (before the transfer fee).
  mapping(address receiver => uint256) public paidOut;
  address[] private payees;
  mapping(address receiver => bool) private isPayee;

  constructor(Kind kind_, string memory name_) {
    kind = kind_;
    name = name_;
    admin = msg.sender;
  }

  modifier onlyAdmin() {
    if (msg.sender != admin) revert NotAdmin();
    _;
  }

  function watch(address account) external onlyAdmin {
    watched = account;
  }

  function payeesOfWatched() external view returns (address[] memory) {
    return payees;
  }

  function paidOutTo(address[] calldata receivers) external view returns (uint256[] memory amounts) {
    amounts = new uint256[](receivers.length);
    for (uint256 i = 0; i < receivers.length; ++i) {
      amounts[i] = paidOut[receivers[i]];
    }
  }

  function mint(address to, uint256 amount) external onlyAdmin {
    totalSupply += amount;
    balanceOf[to] += amount;
    emit Transfer(address(0), to, amount);
  }

  function setBlacklisted(address account, bool listed) external onlyAdmin {
    if (kind != Kind.Blacklisting) revert WrongKind();
    blacklisted[account] = listed;
  }

  function setPaused(bool paused_) external onlyAdmin {
    if (kind != Kind.Pausing) revert WrongKind();
    paused = paused_;
  }

  function setFeeBps(uint256 feeBps_) external onlyAdmin {
    if (kind != Kind.FeeOnTransfer || feeBps_ > 10_000) revert WrongKind();
    feeBps = feeBps_;
  }

  function DOMAIN_SEPARATOR() public view returns (bytes32) {
    return keccak256(
      abi.encode(
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
        keccak256(bytes(name)),
        keccak256("1"),
        block.chainid,
        address(this)
      )
    );
  }

  function permitDigest(address owner, address spender, uint256 value, uint256 nonce, uint256 deadline)
    public
    view
    returns (bytes32)
  {
    bytes32 structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, nonce, deadline));
    return keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
  }

  function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
    external
  {
    if (block.timestamp > deadline) revert PermitExpired();
    address signer = ecrecover(permitDigest(owner, spender, value, nonces[owner]++, deadline), v, r, s);
    if (signer == address(0) || signer != owner) revert InvalidPermit();
    allowance[owner][spender] = value;
    emit Approval(owner, spender, value);
  }

  function approve(address spender, uint256 amount) external returns (bool) {
    allowance[msg.sender][spender] = amount;
    emit Approval(msg.sender, spender, amount);
    return true;
  }

  function transfer(address to, uint256 amount) external returns (bool) {
    _transfer(msg.sender, to, amount);
    return true;
  }

  function transferFrom(address from, address to, uint256 amount) external returns (bool) {
    if (blacklisted[msg.sender]) revert Blacklisted(msg.sender);
    uint256 allowed = allowance[from][msg.sender];
    if (allowed != type(uint256).max) {
      if (allowed < amount) revert InsufficientAllowance();
      allowance[from][msg.sender] = allowed - amount;
    }
    _transfer(from, to, amount);
    return true;
  }

  function _transfer(address from, address to, uint256 amount) private {
    if (paused) revert Paused();
    if (blacklisted[from]) revert Blacklisted(from);
    if (blacklisted[to]) revert Blacklisted(to);
    uint256 balance = balanceOf[from];
    if (balance < amount) revert InsufficientBalance();
    uint256 fee = amount * feeBps / 10_000;
    balanceOf[from] = balance - amount;
    balanceOf[to] += amount - fee;
    totalSupply -= fee;
    if (from == watched && watched != address(0)) {
      if (!isPayee[to]) {
        isPayee[to] = true;
        payees.push(to);
      }
      paidOut[to] += amount;
    }
    emit Transfer(from, to, amount - fee);
  }
}
