import {
  type Abi,
  type Address,
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  type Hex,
  http,
  type PublicClient,
  type Transport,
  type TypedDataDefinition,
  type WalletClient,
} from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { type AnvilInstance, startAnvil } from '../../src/chains/anvil-process.ts';
import { loadArtifact } from '../../src/chains/contract-artifacts.ts';
import {
  ANVIL_KEYS,
  type DevnetDeployment,
  deployDevnetContracts,
  devnetChain,
} from '../../src/chains/devnet.ts';
import { fillAttestationTypedData } from '../../src/chains/fill-attestation.ts';
import {
  buildOrderTypedData,
  hashOrderTypedData,
  type OrderTerms,
} from '../../src/domain/order-typed-data.ts';

/**
 * Two anvil chains with Ferry's contracts (input A, output B) and the calls the contract tests make on them.
 * A suite starts them with `beforeAll(startSides)`; `A` and `B` are live bindings, set once they are up.
 */
export const [deployerKey, attesterKey, offererKey, fillerKey, strangerKey] = ANVIL_KEYS;
export const attester = privateKeyToAccount(attesterKey);
export const offerer = privateKeyToAccount(offererKey);
export const filler = privateKeyToAccount(fillerKey);
export const stranger = privateKeyToAccount(strangerKey);
export const recipient: Address = '0x000000000000000000000000000000000000fe11';

export const INPUT_CHAIN_ID = 910001;
export const OUTPUT_CHAIN_ID = 910002;
export const MILLION = 1_000_000n * 10n ** 6n;
export const GRACE = 300;

export const escrowAbi = loadArtifact('FerryEscrow').abi;
export const fillAbi = loadArtifact('FerryFill').abi;
export const tokenAbi = loadArtifact('TestStablecoin').abi;
// relayFill bubbles up the escrow's errors; give viem both ABIs so it can name them.
export const messengerAbi = [
  ...loadArtifact('AttesterMessenger').abi,
  ...escrowAbi.filter((x) => x.type === 'error'),
];

export interface Side {
  anvil: AnvilInstance;
  chain: Chain;
  pub: PublicClient<Transport, Chain>;
  deployment: DevnetDeployment;
  wallet(key: Hex): WalletClient<Transport, Chain, PrivateKeyAccount>;
}

export async function startSide(chainId: number): Promise<Side> {
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

export let A: Side; // input chain
export let B: Side; // output chain
export let nonce = 0n;

/** Starts both chains with Ferry's contracts deployed (a suite's beforeAll). */
export async function startSides(): Promise<void> {
  [A, B] = await Promise.all([startSide(INPUT_CHAIN_ID), startSide(OUTPUT_CHAIN_ID)]);
}

export async function stopSides(): Promise<void> {
  await Promise.all([A?.anvil.stop(), B?.anvil.stop()]);
}

// ------------------------------------------------------------------ helpers

export async function send(
  side: Side,
  key: Hex,
  address: Address,
  abi: Abi,
  functionName: string,
  args: unknown[],
) {
  const hash = await side.wallet(key).writeContract({ address, abi, functionName, args });
  const receipt = await side.pub.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return receipt;
}

export async function read<T>(
  side: Side,
  address: Address,
  abi: Abi,
  functionName: string,
  args: unknown[] = [],
) {
  return (await side.pub.readContract({ address, abi, functionName, args })) as T;
}

export const balanceOf = (side: Side, token: Address, who: Address) =>
  read<bigint>(side, token, tokenAbi, 'balanceOf', [who]);
export const now = async (side: Side) => (await side.pub.getBlock()).timestamp;
export const usdcA = () => A.deployment.tokens[0]?.address as Address;
export const usdtB = () => B.deployment.tokens[1]?.address as Address;
export const escrow = () => A.deployment.contracts.escrow;
export const status = (hash: Hex) => read<number>(A, escrow(), escrowAbi, 'orderStatus', [hash]);

export async function makeOrder(overrides: Partial<OrderTerms> = {}): Promise<OrderTerms> {
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
    protocolFee: 0n,
    ...overrides,
  };
}

export const sign = (order: OrderTerms, key: Hex = offererKey) =>
  // Signed exactly as the API serves it (uint256 as decimal strings), like a wallet would.
  privateKeyToAccount(key).signTypedData(
    buildOrderTypedData(order, escrow()) as unknown as TypedDataDefinition,
  );
export const hashOrder = (order: OrderTerms, escrowAddress: Address) =>
  hashOrderTypedData(buildOrderTypedData(order, escrowAddress));

export async function approveAndDeposit(order: OrderTerms, signature?: Hex) {
  await send(A, offererKey, order.inputToken, tokenAbi, 'approve', [escrow(), order.inputAmount]);
  // Deposits are submitted by a third party (Ferry's worker); the offerer's signature is the authorisation.
  return send(A, deployerKey, escrow(), escrowAbi, 'deposit', [order, signature ?? (await sign(order))]);
}

export function expectRevert(promise: Promise<unknown>, error: string) {
  return expect(promise).rejects.toThrow(new RegExp(`\\b${error}\\b`));
}

export async function attest(orderHash: Hex, key: Hex = attesterKey, escrowAddress: Address = escrow()) {
  return privateKeyToAccount(key).signTypedData(
    fillAttestationTypedData({
      messenger: A.deployment.contracts.messenger,
      escrow: escrowAddress,
      inputChainId: INPUT_CHAIN_ID,
      orderHash,
    }),
  );
}

export const fill = (order: OrderTerms, orderHash: Hex, key: Hex = fillerKey) =>
  send(B, key, B.deployment.contracts.fill, fillAbi, 'fill', [
    orderHash,
    order.outputToken,
    order.outputAmount,
    order.recipient,
    order.fillDeadline,
  ]);

export async function approveOutput(amount: bigint, key: Hex = fillerKey) {
  await send(B, key, usdtB(), tokenAbi, 'approve', [B.deployment.contracts.fill, amount]);
}

export async function increaseTime(side: Side, seconds: number) {
  const test = createTestClient({ mode: 'anvil', chain: side.chain, transport: http(side.anvil.rpcUrl) });
  await test.increaseTime({ seconds });
  await test.mine({ blocks: 1 });
}
