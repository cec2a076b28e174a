import {
  type Abi,
  type Address,
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  getAddress,
  type Hex,
  http,
  type Log,
  type PublicClient,
  parseEventLogs,
  type TransactionReceipt,
  type Transport,
  type TypedDataDefinition,
  type WalletClient,
  zeroAddress,
} from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { chainById } from '../../src/chains/chain-by-id.ts';
import { loadArtifact } from '../../src/chains/contract-artifacts.ts';
import { loadLzArtifact, lzErrorAbi } from '../../src/chains/layerzero/lz-artifacts.ts';
import { deployLz, type LzChainClient, lzChainClient } from '../../src/chains/layerzero/lz-chain-client.ts';
import { decodeLzPacket, type LzPacket, lzOrigin } from '../../src/chains/layerzero/lz-packet.ts';
import { fillAttestationTypedData } from '../../src/chains/settlement/fill-attestation.ts';
import { proveOptions, tokenRunsOf } from '../../src/chains/settlement/prove-options.ts';
import { type AnvilInstance, startAnvil } from '../../src/devnet/anvil-process.ts';
import { ANVIL_KEYS } from '../../src/devnet/devnet.ts';
import { commitLzVerification, dvnVerify } from '../../src/devnet/layerzero/lz-delivery.ts';
import {
  buildOrderTypedData,
  hashOrderTypedData,
  type OrderTerms,
} from '../../src/domain/order-typed-data.ts';
import {
  CONFIRMATIONS,
  DVN_KEYS,
  deployFerryLzChain,
  EXECUTOR_KEY,
  type FerryLzChain,
  wireAndLockFerryLzChains,
} from './ferry-lz-deploy.ts';

/**
 * Two anvil chains with LayerZero V2 and Ferry's contracts (input A, output B; each app wired to the other and
 * locked: delegate cleared, ownership renounced), and the calls the contract tests make on them. A suite starts
 * them with `beforeAll(startSides)`; `A` and `B` are live bindings, set once they are up. Each chain also has an
 * AttesterMessenger and an escrow it settles, for the attester route.
 */
export const [deployerKey, attesterKey, offererKey, fillerKey, strangerKey] = ANVIL_KEYS;
export const attester = privateKeyToAccount(attesterKey);
export const offerer = privateKeyToAccount(offererKey);
export const filler = privateKeyToAccount(fillerKey);
export const stranger = privateKeyToAccount(strangerKey);
export const recipient: Address = getAddress('0x000000000000000000000000000000000000fe11');
/** Where the LayerZero escrows pay protocol fees. */
export const feeRecipient: Address = getAddress('0x000000000000000000000000000000000000fee5');

export const INPUT_CHAIN_ID = 910001;
export const OUTPUT_CHAIN_ID = 910002;
export const MILLION = 1_000_000n * 10n ** 6n;
export const GRACE = 300;

export const escrowAbi = loadArtifact('FerryEscrow').abi;
export const tokenAbi = loadArtifact('TestStablecoin').abi;
const errorsOf = (abi: Abi) => abi.filter((x) => x.type === 'error');
// Calls bubble up the errors of what they call (the app the escrow's, the escrow the token's): give viem them all.
export const appAbi: Abi = [
  ...loadArtifact('FerryApp').abi,
  ...errorsOf(escrowAbi),
  ...errorsOf(tokenAbi),
  ...lzErrorAbi(),
];
export const messengerAbi = [...loadArtifact('AttesterMessenger').abi, ...errorsOf(escrowAbi)];
const endpointAbi: Abi = [...loadLzArtifact('EndpointV2').abi, ...errorsOf(appAbi)];

export interface Side {
  anvil: AnvilInstance;
  chain: Chain;
  pub: PublicClient<Transport, Chain>;
  ferry: FerryLzChain;
  tokens: { usdc: Address; usdt: Address };
  /** An escrow settled by this chain's AttesterMessenger (the attester route). */
  attested: { escrow: Address; messenger: Address };
  wallet(key: Hex): WalletClient<Transport, Chain, PrivateKeyAccount>;
  lzClient(key: Hex): LzChainClient;
}

async function startSide(chainId: number, eid: number, remoteEid: number, feeBps: number): Promise<Side> {
  const anvil = await startAnvil({ chainId });
  const chain = chainById(chainId, anvil.rpcUrl);
  const pub = createPublicClient({ chain, transport: http(anvil.rpcUrl), pollingInterval: 50 });
  const lzClient = (key: Hex) => lzChainClient(anvil.rpcUrl, chainId, key);
  const deployer = lzClient(deployerKey);
  const ferry = await deployFerryLzChain(anvil, deployerKey, { eid, remoteEid }, GRACE, feeRecipient, feeBps);
  const token = async (symbol: string, name: string) =>
    getAddress((await deployLz(deployer, symbol, loadArtifact('TestStablecoin'), [name, symbol])).address);
  const tokens = {
    usdc: await token('USDC', 'Devnet USD Coin'),
    usdt: await token('USDT', 'Devnet Tether USD'),
  };
  const messenger = (
    await deployLz(deployer, 'messenger', loadArtifact('AttesterMessenger'), [attester.address])
  ).address;
  const attestedEscrow = (
    await deployLz(deployer, 'escrow', loadArtifact('FerryEscrow'), [
      messenger,
      BigInt(GRACE),
      zeroAddress,
      0n,
    ])
  ).address;
  const side: Side = {
    anvil,
    chain,
    pub,
    ferry,
    tokens,
    attested: { escrow: attestedEscrow, messenger },
    wallet: (key) =>
      createWalletClient({
        account: privateKeyToAccount(key),
        chain,
        transport: http(anvil.rpcUrl),
        pollingInterval: 50,
      }),
    lzClient,
  };
  for (const address of Object.values(tokens)) {
    for (const to of [offerer.address, filler.address])
      await send(side, deployerKey, address, tokenAbi, 'mint', [to, MILLION]);
  }
  return side;
}

export let A: Side; // input chain
export let B: Side; // output chain
export let nonce = 0n;
/** The LayerZero escrows' protocolFeeBps (startSides' option): makeOrder's default protocolFee follows it. */
export let protocolFeeBps = 0;

/** Starts both chains with LayerZero and Ferry's contracts, wired and locked (a suite's beforeAll). */
export const startSides = (): Promise<void> => startSidesCharging(0);

/** startSides with the LayerZero escrows charging `bps` (their protocolFeeBps). */
export async function startSidesCharging(bps: number): Promise<void> {
  protocolFeeBps = bps;
  [A, B] = await Promise.all([
    startSide(INPUT_CHAIN_ID, 40_001, 40_002, protocolFeeBps),
    startSide(OUTPUT_CHAIN_ID, 40_002, 40_001, protocolFeeBps),
  ]);
  const chains = [A, B].map((side) => ({
    name: side.chain.name,
    rpcUrl: side.anvil.rpcUrl,
    chainId: side.chain.id,
    ferry: side.ferry,
  }));
  await wireAndLockFerryLzChains(chains, deployerKey);
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
  value?: bigint,
): Promise<TransactionReceipt> {
  const hash = await side.wallet(key).writeContract({ address, abi, functionName, args, value });
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
export const usdcA = () => A.tokens.usdc;
export const usdtB = () => B.tokens.usdt;
export const escrow = () => A.ferry.escrow;
export const status = (hash: Hex, escrowAddress = escrow()) =>
  read<number>(A, escrowAddress, escrowAbi, 'orderStatus', [hash]);

/** The protocolFee an escrow charging `bps` requires of `inputAmount` (rounded down). */
export const feeOf = (inputAmount: bigint, bps: number = protocolFeeBps) =>
  (inputAmount * BigInt(bps)) / 10_000n;

/** An order of the offerer for the filler; protocolFee defaults to the escrows' bps of the input. */
export async function makeOrder(overrides: Partial<OrderTerms> = {}): Promise<OrderTerms> {
  const t = await now(A);
  nonce += 1n;
  const inputAmount = overrides.inputAmount ?? 100_000_000n;
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
    protocolFee: feeOf(inputAmount),
    ...overrides,
    // Exclusive until the fill deadline unless the test says otherwise (the semantics before open orders).
    exclusivityDeadline: overrides.exclusivityDeadline ?? overrides.fillDeadline ?? t + 3600n,
  };
}

export const sign = (order: OrderTerms, key: Hex = offererKey, escrowAddress = escrow()) =>
  // Signed exactly as the API serves it (uint256 as decimal strings), like a wallet would.
  privateKeyToAccount(key).signTypedData(
    buildOrderTypedData(order, escrowAddress) as unknown as TypedDataDefinition,
  );
export const hashOrder = (order: OrderTerms, escrowAddress: Address = escrow()) =>
  hashOrderTypedData(buildOrderTypedData(order, escrowAddress));

/** The FillProof (FerryOrder.sol) of `order` filled at `fillTime`: its hash and the terms the escrow pays out. */
export const compactProof = (order: OrderTerms, fillTime: bigint, escrowAddress: Address = escrow()) => ({
  orderHash: hashOrder(order, escrowAddress),
  inputToken: order.inputToken,
  inputAmount: order.inputAmount,
  protocolFee: order.protocolFee,
  fillDeadline: order.fillDeadline,
  exclusiveFiller: order.filler,
  exclusivityDeadline: order.exclusivityDeadline,
  fillTime,
});

export async function approveAndDeposit(order: OrderTerms, signature?: Hex, escrowAddress = escrow()) {
  await send(A, offererKey, order.inputToken, tokenAbi, 'approve', [escrowAddress, order.inputAmount]);
  // Deposits are submitted by a third party (Ferry's worker); the offerer's signature is the authorisation.
  return send(A, deployerKey, escrowAddress, escrowAbi, 'deposit', [
    order,
    signature ?? (await sign(order, offererKey, escrowAddress)),
  ]);
}

export function expectRevert(promise: Promise<unknown>, error: string) {
  return expect(promise).rejects.toThrow(new RegExp(`\\b${error}\\b`));
}

/**
 * The attester's signature over a fill at `fillTime` by `by` (the filler of record; the order's filler unless
 * given), for the AttesterMessenger route (A's attested escrow).
 */
export function attest(
  order: OrderTerms,
  fillTime: bigint,
  key: Hex = attesterKey,
  by: Address = order.filler,
) {
  const typedData = fillAttestationTypedData({
    messenger: A.attested.messenger,
    escrow: A.attested.escrow,
    inputChainId: INPUT_CHAIN_ID,
    orderHash: hashOrder(order, A.attested.escrow),
    filler: by,
    fillTime,
  });
  return privateKeyToAccount(key).signTypedData(typedData as never);
}

/** The filler pays the recipient on B (no proof). */
export const fill = (order: OrderTerms, key: Hex = fillerKey, escrowAddress = escrow()) =>
  send(B, key, B.ferry.app, appAbi, 'fill', [order, escrowAddress]);

/** The LayerZero packet a proving transaction sent. */
export function packetOf(receipt: TransactionReceipt): LzPacket {
  const [sent] = parseEventLogs({
    abi: loadLzArtifact('EndpointV2').abi,
    eventName: 'PacketSent',
    logs: receipt.logs,
  });
  if (!sent) throw new Error(`no PacketSent in ${receipt.transactionHash}`);
  return decodeLzPacket((sent.args as { encodedPayload: Hex }).encodedPayload);
}

/** The fee B's app asks to prove `orders` (unfilled ones as if filled now). */
export const quoteProve = (
  orders: OrderTerms[],
  options = proveOptions(orders.length, tokenRunsOf(orders)),
) => read<bigint>(B, B.ferry.app, appAbi, 'quoteProve', [orders, escrow(), options]);

/** fillAndProve on B as the filler, paying the quoted fee: the receipt and the packet it sent. */
export async function fillAndProve(order: OrderTerms, key: Hex = fillerKey) {
  const options = proveOptions(1);
  const fee = await quoteProve([order], options);
  const receipt = await send(B, key, B.ferry.app, appAbi, 'fillAndProve', [order, escrow(), options], fee);
  return { receipt, packet: packetOf(receipt) };
}

/** prove(orders) on B (permissionless), paying the quoted fee. */
export async function prove(orders: OrderTerms[], key: Hex = strangerKey) {
  const options = proveOptions(orders.length, tokenRunsOf(orders));
  const fee = await quoteProve(orders, options);
  const receipt = await send(B, key, B.ferry.app, appAbi, 'prove', [orders, escrow(), options], fee);
  return { receipt, packet: packetOf(receipt) };
}

export async function approveOutput(amount: bigint, key: Hex = fillerKey) {
  await send(B, key, usdtB(), tokenAbi, 'approve', [B.ferry.app, amount]);
}

export async function increaseTime(side: Side, seconds: number) {
  const test = createTestClient({ mode: 'anvil', chain: side.chain, transport: http(side.anvil.rpcUrl) });
  await test.increaseTime({ seconds });
  await test.mine({ blocks: 1 });
}

/** The executor's call on `side`: EndpointV2.lzReceive of a committed packet, with every Ferry error named. */
export function endpointCall(side: Side, functionName: string, args: unknown[]) {
  return send(side, strangerKey, side.ferry.lz.endpoint, endpointAbi, functionName, args);
}

/** Each DVN in `dvns` (indices) verifies `packet` on `to` (A by default); answers each verification's gas. */
export async function verifyBy(packet: LzPacket, dvns: number[] = [0, 1], to: Side = A): Promise<bigint[]> {
  const gas: bigint[] = [];
  for (const i of dvns) {
    const key = DVN_KEYS[i] as Hex;
    const dvn = to.ferry.lz.dvns[i];
    if (!dvn) throw new Error(`no DVN ${i}`);
    gas.push(await dvnVerify(to.lzClient(key), key, dvn, to.ferry.lz, packet, CONFIRMATIONS));
  }
  return gas;
}

/** ReceiveUln302.commitVerification (anyone may call it): the endpoint then holds the payload hash. */
export const commit = (packet: LzPacket, to: Side = A) =>
  commitLzVerification(to.lzClient(EXECUTOR_KEY), to.ferry.lz, packet);

/** EndpointV2.lzReceive of a committed packet (anyone may call it): the app settles what it proves. */
export const execute = (packet: LzPacket, to: Side = A) =>
  endpointCall(to, 'lzReceive', [lzOrigin(packet), packet.receiver, packet.guid, packet.message, '0x']);

/** Both DVNs verify, then commit and execute: what the devnet relay does. */
export async function deliver(packet: LzPacket, to: Side = A) {
  const dvnGas = await verifyBy(packet, [0, 1], to);
  const commitGas = await commit(packet, to);
  const receipt = await execute(packet, to);
  return { dvnGas, commitGas, receipt };
}

type DepositedOrder = Awaited<ReturnType<typeof makeOrder>>;

/** An order made with `overrides`, approved and deposited into A's escrow. */
export async function depositedOrder(overrides: Partial<DepositedOrder> = {}): Promise<DepositedOrder> {
  const order = await makeOrder(overrides);
  await approveAndDeposit(order);
  return order;
}

/** The args of every `name` event of FerryApp or FerryEscrow in `logs`. */
export function events(logs: Log[], name: string) {
  const parsed = parseEventLogs({ abi: [...appAbi, ...escrowAbi], eventName: name, logs }) as unknown as {
    args: Record<string, unknown>;
  }[];
  return parsed.map((log) => log.args);
}
