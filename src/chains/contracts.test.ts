import {
  type Abi,
  type Address,
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  type Hex,
  hashTypedData,
  http,
  keccak256,
  type PublicClient,
  parseEventLogs,
  parseSignature,
  type Transport,
  type TypedDataDefinition,
  toHex,
  type WalletClient,
} from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildOrderTypedData,
  hashOrderTypedData,
  ORDER_TYPE,
  type OrderTerms,
} from '../domain/order-typed-data.ts';
import { type AnvilInstance, startAnvil } from './anvil-process.ts';
import { loadArtifact } from './contract-artifacts.ts';
import { ANVIL_KEYS, type DevnetDeployment, deployDevnetContracts, devnetChain } from './devnet.ts';
import { fillAttestationTypedData } from './fill-attestation.ts';

const [deployerKey, attesterKey, offererKey, fillerKey, strangerKey] = ANVIL_KEYS;
const attester = privateKeyToAccount(attesterKey);
const offerer = privateKeyToAccount(offererKey);
const filler = privateKeyToAccount(fillerKey);
const stranger = privateKeyToAccount(strangerKey);
const recipient: Address = '0x000000000000000000000000000000000000fe11';

const INPUT_CHAIN_ID = 910001;
const OUTPUT_CHAIN_ID = 910002;
const MILLION = 1_000_000n * 10n ** 6n;
const GRACE = 300;

const escrowAbi = loadArtifact('FerryEscrow').abi;
const fillAbi = loadArtifact('FerryFill').abi;
const tokenAbi = loadArtifact('TestStablecoin').abi;
// relayFill bubbles up the escrow's errors; give viem both ABIs so it can name them.
const messengerAbi = [
  ...loadArtifact('AttesterMessenger').abi,
  ...escrowAbi.filter((x) => x.type === 'error'),
];

interface Side {
  anvil: AnvilInstance;
  chain: Chain;
  pub: PublicClient<Transport, Chain>;
  deployment: DevnetDeployment;
  wallet(key: Hex): WalletClient<Transport, Chain, PrivateKeyAccount>;
}

async function startSide(chainId: number): Promise<Side> {
  const anvil = await startAnvil({ chainId });
  const chain = devnetChain(chainId, anvil.rpcUrl);
  const deployment = await deployDevnetContracts({
    rpcUrl: anvil.rpcUrl,
    chainId,
    deployerKey,
    attester: attester.address,
    mints: [offerer.address, filler.address].map((to) => ({ to, amount: MILLION })),
    settleGrace: GRACE,
  });
  return {
    anvil,
    chain,
    deployment,
    pub: createPublicClient({ chain, transport: http(anvil.rpcUrl) }),
    wallet: (key) =>
      createWalletClient({ account: privateKeyToAccount(key), chain, transport: http(anvil.rpcUrl) }),
  };
}

let A: Side; // input chain
let B: Side; // output chain
let nonce = 0n;

beforeAll(async () => {
  [A, B] = await Promise.all([startSide(INPUT_CHAIN_ID), startSide(OUTPUT_CHAIN_ID)]);
});

afterAll(async () => {
  await Promise.all([A?.anvil.stop(), B?.anvil.stop()]);
});

// ------------------------------------------------------------------ helpers

async function send(side: Side, key: Hex, address: Address, abi: Abi, functionName: string, args: unknown[]) {
  const hash = await side.wallet(key).writeContract({ address, abi, functionName, args });
  const receipt = await side.pub.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return receipt;
}

async function read<T>(side: Side, address: Address, abi: Abi, functionName: string, args: unknown[] = []) {
  return (await side.pub.readContract({ address, abi, functionName, args })) as T;
}

const balanceOf = (side: Side, token: Address, who: Address) =>
  read<bigint>(side, token, tokenAbi, 'balanceOf', [who]);
const now = async (side: Side) => (await side.pub.getBlock()).timestamp;
const usdcA = () => A.deployment.tokens[0]?.address as Address;
const usdtB = () => B.deployment.tokens[1]?.address as Address;
const escrow = () => A.deployment.contracts.escrow;
const status = (hash: Hex) => read<number>(A, escrow(), escrowAbi, 'orderStatus', [hash]);

async function makeOrder(overrides: Partial<OrderTerms> = {}): Promise<OrderTerms> {
  const t = await now(A);
  nonce += 1n;
  return {
    offerer: offerer.address,
    recipient,
    inputToken: usdcA(),
    outputToken: usdtB(),
    inputAmount: 100_000_000n,
    outputAmount: 99_900_000n,
    inputChainId: BigInt(INPUT_CHAIN_ID),
    outputChainId: BigInt(OUTPUT_CHAIN_ID),
    filler: filler.address,
    nonce,
    openDeadline: t + 600n,
    fillDeadline: t + 3600n,
    ...overrides,
  };
}

const sign = (order: OrderTerms, key: Hex = offererKey) =>
  // Signed exactly as the API serves it (uint256 as decimal strings), like a wallet would.
  privateKeyToAccount(key).signTypedData(
    buildOrderTypedData(order, escrow()) as unknown as TypedDataDefinition,
  );
const hashOrder = (order: OrderTerms, escrowAddress: Address) =>
  hashOrderTypedData(buildOrderTypedData(order, escrowAddress));

async function approveAndDeposit(order: OrderTerms, signature?: Hex) {
  await send(A, offererKey, order.inputToken, tokenAbi, 'approve', [escrow(), order.inputAmount]);
  // Deposits are submitted by a third party (Ferry's worker); the offerer's signature is the authorisation.
  return send(A, deployerKey, escrow(), escrowAbi, 'deposit', [order, signature ?? (await sign(order))]);
}

function expectRevert(promise: Promise<unknown>, error: string) {
  return expect(promise).rejects.toThrow(new RegExp(`\\b${error}\\b`));
}

async function attest(orderHash: Hex, key: Hex = attesterKey, escrowAddress: Address = escrow()) {
  return privateKeyToAccount(key).signTypedData(
    fillAttestationTypedData({
      messenger: A.deployment.contracts.messenger,
      escrow: escrowAddress,
      inputChainId: INPUT_CHAIN_ID,
      orderHash,
    }),
  );
}

const fill = (order: OrderTerms, orderHash: Hex, key: Hex = fillerKey) =>
  send(B, key, B.deployment.contracts.fill, fillAbi, 'fill', [
    orderHash,
    order.outputToken,
    order.outputAmount,
    order.recipient,
    order.fillDeadline,
  ]);

async function approveOutput(amount: bigint, key: Hex = fillerKey) {
  await send(B, key, usdtB(), tokenAbi, 'approve', [B.deployment.contracts.fill, amount]);
}

async function increaseTime(side: Side, seconds: number) {
  const test = createTestClient({ mode: 'anvil', chain: side.chain, transport: http(side.anvil.rpcUrl) });
  await test.increaseTime({ seconds });
  await test.mine({ blocks: 1 });
}

// ------------------------------------------------------------------ tests

describe('FerryEscrow order hashing', () => {
  it('hashOrder equals viem hashTypedData over the published Order type', async () => {
    const order = await makeOrder();
    const expected = hashTypedData({
      domain: { name: 'Ferry', version: '1', chainId: INPUT_CHAIN_ID, verifyingContract: escrow() },
      types: { Order: ORDER_TYPE },
      primaryType: 'Order',
      message: order,
    });
    expect(await read(A, escrow(), escrowAbi, 'hashOrder', [order])).toBe(expected);
    expect(hashOrder(order, escrow())).toBe(expected);
  });

  it('uses the exact Order type string', async () => {
    const typeString =
      'Order(address offerer,address recipient,address inputToken,address outputToken,uint256 inputAmount,' +
      'uint256 outputAmount,uint256 inputChainId,uint256 outputChainId,address filler,uint256 nonce,' +
      'uint256 openDeadline,uint256 fillDeadline)';
    expect(await read(A, escrow(), escrowAbi, 'ORDER_TYPEHASH')).toBe(keccak256(toHex(typeString)));
  });
});

describe('swap lifecycle', () => {
  it('deposit -> fill -> attest -> settle conserves balances', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order, escrow());
    const before = {
      offerer: await balanceOf(A, usdcA(), offerer.address),
      fillerIn: await balanceOf(A, usdcA(), filler.address),
      escrow: await balanceOf(A, usdcA(), escrow()),
      fillerOut: await balanceOf(B, usdtB(), filler.address),
      recipient: await balanceOf(B, usdtB(), recipient),
    };

    const depositReceipt = await approveAndDeposit(order);
    const [deposited] = parseEventLogs({ abi: escrowAbi, logs: depositReceipt.logs, eventName: 'Deposited' });
    expect(deposited?.args).toEqual({
      orderHash,
      offerer: offerer.address,
      inputToken: order.inputToken,
      inputAmount: order.inputAmount,
    });
    expect(await status(orderHash)).toBe(1);
    expect(await balanceOf(A, usdcA(), escrow())).toBe(before.escrow + order.inputAmount);

    await approveOutput(order.outputAmount);
    await fill(order, orderHash);
    expect(await read(B, B.deployment.contracts.fill, fillAbi, 'filled', [orderHash, filler.address])).toBe(
      true,
    );

    // Anyone may relay the attester's signature.
    await send(A, strangerKey, A.deployment.contracts.messenger, messengerAbi, 'relayFill', [
      escrow(),
      orderHash,
      await attest(orderHash),
    ]);
    expect(await status(orderHash)).toBe(2);

    expect(await balanceOf(A, usdcA(), offerer.address)).toBe(before.offerer - order.inputAmount);
    expect(await balanceOf(A, usdcA(), filler.address)).toBe(before.fillerIn + order.inputAmount);
    expect(await balanceOf(A, usdcA(), escrow())).toBe(before.escrow);
    expect(await balanceOf(B, usdtB(), filler.address)).toBe(before.fillerOut - order.outputAmount);
    expect(await balanceOf(B, usdtB(), recipient)).toBe(before.recipient + order.outputAmount);

    // The attestation cannot settle twice.
    await expectRevert(
      send(A, strangerKey, A.deployment.contracts.messenger, messengerAbi, 'relayFill', [
        escrow(),
        orderHash,
        await attest(orderHash),
      ]),
      'NotActive',
    );
  });

  it('rejects a replayed deposit of the same signed order', async () => {
    const order = await makeOrder();
    const signature = await sign(order);
    await approveAndDeposit(order, signature);
    await expectRevert(approveAndDeposit(order, signature), 'OrderExists');
  });

  it('rejects signatures that are not the offerer’s, malleable or malformed', async () => {
    const order = await makeOrder();
    await expectRevert(approveAndDeposit(order, await sign(order, strangerKey)), 'WrongSigner');
    // The offerer's genuine signature does not cover a tampered order (here: a different recipient).
    const tampered = { ...order, recipient: stranger.address };
    await expectRevert(approveAndDeposit(tampered, await sign(order)), 'WrongSigner');

    // Same signature, other half of the curve: (r, n - s, v ^ 1) recovers the same key but is rejected.
    const { r, s, yParity } = parseSignature(await sign(order));
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const highS = (n - BigInt(s)).toString(16).padStart(64, '0');
    const flippedV = (yParity === 0 ? 28 : 27).toString(16);
    await expectRevert(approveAndDeposit(order, `${r}${highS}${flippedV}` as Hex), 'InvalidSignature');

    const good = await sign(order);
    await expectRevert(approveAndDeposit(order, `${good.slice(0, -2)}01` as Hex), 'InvalidSignature');
    await expectRevert(approveAndDeposit(order, good.slice(0, -2) as Hex), 'InvalidSignature');
    expect(await status(hashOrder(order, escrow()))).toBe(0);
  });

  it('rejects orders for another chain, past their open deadline or malformed', async () => {
    await expectRevert(
      approveAndDeposit(await makeOrder({ inputChainId: BigInt(OUTPUT_CHAIN_ID) })),
      'WrongChain',
    );
    const t = await now(A);
    await expectRevert(approveAndDeposit(await makeOrder({ openDeadline: t - 1n })), 'OrderExpired');
    await expectRevert(approveAndDeposit(await makeOrder({ inputAmount: 0n })), 'InvalidOrder');
    const noFiller = await makeOrder({ filler: '0x0000000000000000000000000000000000000000' });
    await expectRevert(approveAndDeposit(noFiller), 'InvalidOrder');
  });

  it('fails the deposit when the offerer has not approved the escrow', async () => {
    const order = await makeOrder();
    await send(A, offererKey, order.inputToken, tokenAbi, 'approve', [escrow(), 0n]);
    // The token's InsufficientAllowance revert surfaces as SafeTransfer's TransferFailed(token).
    await expectRevert(
      send(A, deployerKey, escrow(), escrowAbi, 'deposit', [order, await sign(order)]),
      'TransferFailed',
    );
  });
});

describe('FerryFill', () => {
  it('fills an order only once per filler, and a stranger cannot block the filler', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order, escrow());
    // A stranger pays first under the same hash: recorded as its own fill, not the designated filler's.
    await send(B, offererKey, usdtB(), tokenAbi, 'approve', [
      B.deployment.contracts.fill,
      order.outputAmount,
    ]);
    await fill(order, orderHash, offererKey);
    await expectRevert(fill(order, orderHash, offererKey), 'AlreadyFilled');
    await approveOutput(order.outputAmount * 2n);
    await fill(order, orderHash);
    await expectRevert(fill(order, orderHash), 'AlreadyFilled');
  });

  it('refuses fills after the fill deadline', async () => {
    const order = await makeOrder({ fillDeadline: (await now(B)) - 1n });
    await approveOutput(order.outputAmount);
    await expectRevert(fill(order, hashOrder(order, escrow())), 'FillDeadlinePassed');
  });
});

describe('settlement authorisation', () => {
  it('only the messenger can settle, and only with the attester’s signature for this escrow', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order, escrow());
    await approveAndDeposit(order);
    const messenger = A.deployment.contracts.messenger;

    await expectRevert(send(A, fillerKey, escrow(), escrowAbi, 'settle', [orderHash]), 'NotMessenger');
    await expectRevert(send(A, attesterKey, escrow(), escrowAbi, 'settle', [orderHash]), 'NotMessenger');
    await expectRevert(
      send(A, fillerKey, messenger, messengerAbi, 'relayFill', [
        escrow(),
        orderHash,
        await attest(orderHash, fillerKey),
      ]),
      'WrongAttester',
    );
    // A genuine attestation for another escrow cannot be redirected to this one. (Not B's escrow: the
    // deterministic deployment puts it at the same address; the chain id in the digest separates those.)
    const otherEscrow = await attest(orderHash, attesterKey, stranger.address);
    await expectRevert(
      send(A, fillerKey, messenger, messengerAbi, 'relayFill', [escrow(), orderHash, otherEscrow]),
      'WrongAttester',
    );
    // Nor one signed for the same escrow address on the other chain.
    const otherChain = await attester.signTypedData(
      fillAttestationTypedData({ messenger, escrow: escrow(), inputChainId: OUTPUT_CHAIN_ID, orderHash }),
    );
    await expectRevert(
      send(A, fillerKey, messenger, messengerAbi, 'relayFill', [escrow(), orderHash, otherChain]),
      'WrongAttester',
    );
    // Nor an attestation for a different order.
    const otherOrder = await attest(hashOrder(await makeOrder(), escrow()));
    await expectRevert(
      send(A, fillerKey, messenger, messengerAbi, 'relayFill', [escrow(), orderHash, otherOrder]),
      'WrongAttester',
    );
    expect(await status(orderHash)).toBe(1);
  });
});

describe('refunds', () => {
  it('refunds only after the fill deadline plus the settle grace, once, and never settles afterwards', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order, escrow());
    const before = await balanceOf(A, usdcA(), offerer.address);
    await approveAndDeposit(order);
    expect(await read(A, escrow(), escrowAbi, 'settleGrace')).toBe(BigInt(GRACE));
    await expectRevert(send(A, strangerKey, escrow(), escrowAbi, 'refund', [orderHash]), 'RefundNotOpen');
    // Past fillDeadline but inside the grace: still closed, for the offerer too.
    await increaseTime(A, 3601);
    await expectRevert(send(A, offererKey, escrow(), escrowAbi, 'refund', [orderHash]), 'RefundNotOpen');

    await increaseTime(A, GRACE);
    const receipt = await send(A, strangerKey, escrow(), escrowAbi, 'refund', [orderHash]);
    expect(receipt.logs).toHaveLength(2); // Transfer + Refunded
    expect(await status(orderHash)).toBe(3);
    expect(await balanceOf(A, usdcA(), offerer.address)).toBe(before);

    await expectRevert(send(A, strangerKey, escrow(), escrowAbi, 'refund', [orderHash]), 'NotActive');
    await expectRevert(
      send(A, strangerKey, A.deployment.contracts.messenger, messengerAbi, 'relayFill', [
        escrow(),
        orderHash,
        await attest(orderHash),
      ]),
      'NotActive',
    );
    // The old signature cannot re-open it: refunds happen after fillDeadline >= openDeadline, and the
    // orderHash stays marked Refunded regardless.
    await expectRevert(approveAndDeposit(order), 'OrderExpired');
  });

  it('keeps refund closed at fillDeadline + settleGrace and opens it one second later', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order, escrow());
    await approveAndDeposit(order);
    const test = createTestClient({ mode: 'anvil', chain: A.chain, transport: http(A.anvil.rpcUrl) });
    const opensAfter = order.fillDeadline + BigInt(GRACE);
    // Calls run against the latest block, so each boundary is checked at exactly that block's time.
    const refundAtLatest = () =>
      A.pub.simulateContract({
        account: stranger,
        address: escrow(),
        abi: escrowAbi,
        functionName: 'refund',
        args: [orderHash],
      });
    await test.setNextBlockTimestamp({ timestamp: opensAfter });
    await test.mine({ blocks: 1 });
    await expectRevert(refundAtLatest(), 'RefundNotOpen');
    await test.setNextBlockTimestamp({ timestamp: opensAfter + 1n });
    await test.mine({ blocks: 1 });
    await refundAtLatest();
    await send(A, strangerKey, escrow(), escrowAbi, 'refund', [orderHash]);
    expect(await status(orderHash)).toBe(3);
  });

  it('settles a fill made by fillDeadline during the grace, after which refund is closed for good', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order, escrow());
    const fillerBefore = await balanceOf(A, usdcA(), filler.address);
    await approveAndDeposit(order);
    await approveOutput(order.outputAmount);
    await fill(order, orderHash);
    // The input chain passes fillDeadline before the attestation is relayed: inside the grace it still settles.
    await increaseTime(A, 3601 + GRACE / 2);
    await send(A, strangerKey, A.deployment.contracts.messenger, messengerAbi, 'relayFill', [
      escrow(),
      orderHash,
      await attest(orderHash),
    ]);
    expect(await status(orderHash)).toBe(2);
    expect(await balanceOf(A, usdcA(), filler.address)).toBe(fillerBefore + order.inputAmount);
    await increaseTime(A, GRACE);
    await expectRevert(send(A, offererKey, escrow(), escrowAbi, 'refund', [orderHash]), 'NotActive');
  });

  it('cannot refund an order that was settled', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order, escrow());
    await approveAndDeposit(order);
    await send(A, strangerKey, A.deployment.contracts.messenger, messengerAbi, 'relayFill', [
      escrow(),
      orderHash,
      await attest(orderHash),
    ]);
    await increaseTime(A, 3601 + GRACE);
    await expectRevert(send(A, strangerKey, escrow(), escrowAbi, 'refund', [orderHash]), 'NotActive');
  });
});

describe('non-standard tokens', () => {
  async function deployTestToken(name: 'FalseToken' | 'NoReturnToken') {
    const { abi, bytecode } = loadArtifact(name);
    const hash = await A.wallet(deployerKey).deployContract({ abi, bytecode });
    const { contractAddress } = await A.pub.waitForTransactionReceipt({ hash });
    const token = contractAddress as Address;
    await send(A, deployerKey, token, abi, 'mint', [offerer.address, 1_000_000_000n]);
    return { token, abi };
  }

  it('reverts the deposit when transferFrom returns false', async () => {
    const { token, abi } = await deployTestToken('FalseToken');
    const order = await makeOrder({ inputToken: token });
    // No approval: FalseToken.transferFrom returns false instead of reverting.
    await expectRevert(
      send(A, deployerKey, escrow(), escrowAbi, 'deposit', [order, await sign(order)]),
      'TransferFailed',
    );
    expect(await status(hashOrder(order, escrow()))).toBe(0);
    expect(await read(A, token, abi, 'balanceOf', [escrow()])).toBe(0n);

    // With an approval the same token works: `true` is accepted.
    await send(A, offererKey, token, abi, 'approve', [escrow(), order.inputAmount]);
    await send(A, deployerKey, escrow(), escrowAbi, 'deposit', [order, await sign(order)]);
    expect(await read(A, token, abi, 'balanceOf', [escrow()])).toBe(order.inputAmount);
  });

  it('works with tokens that return nothing (USDT style)', async () => {
    const { token, abi } = await deployTestToken('NoReturnToken');
    const order = await makeOrder({ inputToken: token });
    const orderHash = hashOrder(order, escrow());
    await send(A, offererKey, token, abi, 'approve', [escrow(), order.inputAmount]);
    await send(A, deployerKey, escrow(), escrowAbi, 'deposit', [order, await sign(order)]);
    await increaseTime(A, 3601 + GRACE);
    await send(A, strangerKey, escrow(), escrowAbi, 'refund', [orderHash]);
    expect(await read(A, token, abi, 'balanceOf', [offerer.address])).toBe(1_000_000_000n);
  });

  it('rejects a token address without code', async () => {
    const order = await makeOrder({ inputToken: '0x000000000000000000000000000000000000dEaD' });
    // balanceOf on an empty account fails to decode, before transferFrom is even attempted.
    await expect(
      send(A, deployerKey, escrow(), escrowAbi, 'deposit', [order, await sign(order)]),
    ).rejects.toThrow();
  });
});

describe('depositWithPermit', () => {
  it('opens an order without a prior approve transaction', async () => {
    const order = await makeOrder();
    const orderHash = hashOrder(order, escrow());
    await send(A, offererKey, order.inputToken, tokenAbi, 'approve', [escrow(), 0n]);
    const permitDeadline = order.openDeadline;
    const permitSig = await offerer.signTypedData({
      domain: { name: 'Devnet USD Coin', version: '1', chainId: INPUT_CHAIN_ID, verifyingContract: usdcA() },
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: {
        owner: offerer.address,
        spender: escrow(),
        value: order.inputAmount,
        nonce: await read<bigint>(A, usdcA(), tokenAbi, 'nonces', [offerer.address]),
        deadline: permitDeadline,
      },
    });
    const { r, s, v } = parseSignature(permitSig);
    await send(A, deployerKey, escrow(), escrowAbi, 'depositWithPermit', [
      order,
      await sign(order),
      permitDeadline,
      Number(v),
      r,
      s,
    ]);
    expect(await status(orderHash)).toBe(1);
    expect(await read(A, usdcA(), tokenAbi, 'allowance', [offerer.address, escrow()])).toBe(0n);
  });
});
