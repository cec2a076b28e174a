import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  parseEventLogs,
  type TypedDataDefinition,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainById } from '../src/chains/chain-by-id.ts';
import type { ChainError } from '../src/chains/chain-error.ts';
import type { RegistryFile } from '../src/chains/chain-registry.ts';
import { loadArtifact } from '../src/chains/contract-artifacts.ts';
import { loadLzArtifact } from '../src/chains/layerzero/lz-artifacts.ts';
import type { LzChainDeployment } from '../src/chains/layerzero/lz-chain-deployment.ts';
import { decodeLzPacket, lzReceiveOptions } from '../src/chains/layerzero/lz-packet.ts';
import { ANVIL_KEYS, type Devnets, startDevnets } from '../src/devnet/devnet.ts';
import type { LzDelivery } from '../src/devnet/layerzero/lz-relay.ts';
import { usdcAbi } from '../src/devnet/usdc-devnet.ts';
import { buildOrderTypedData, hashOrderTypedData, type OrderTerms } from '../src/domain/order-typed-data.ts';
import { takeEscrowCode } from './support/escrow-outage.ts';
import { until } from './support/polling.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The devnets' LayerZero path end to end: a fill proven by the filler's own fillAndProve settles the escrow on the
 * other devnet through the relay running beside the anvils, with no Ferry process at all.
 */
const trader = privateKeyToAccount(ANVIL_KEYS[2]);
const recipient: Address = '0x000000000000000000000000000000000000fe12';
const appAbi = loadArtifact('FerryApp').abi;
const escrowAbi = loadArtifact('FerryEscrow').abi;
const AMOUNT = 25_000_000n;

let devnets: Devnets;
let dataDir: string;
let nonce = 0n;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'ferry-devnet-relay-'));
  devnets = await startDevnets({
    dataDir,
    ports: [0, 0],
    demoWallets: [trader.address],
    relay: { pollIntervalMs: 50 },
  });
});

afterAll(async () => {
  await devnets?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** What this suite needs of a devnet: the same fields in `devnets.chains` and in a registry file's entries. */
interface DevnetView {
  chainId: number;
  rpcUrl: string;
  contracts: { escrow: string; fill: string };
  tokens: readonly { address: string }[];
}
let viewed: readonly DevnetView[] = [];

function side(index: 0 | 1) {
  const chain = (viewed.length > 0 ? viewed : devnets.chains)[index] as
    | (DevnetView & { contracts: { escrow: Address; fill: Address }; tokens: { address: Address }[] })
    | undefined;
  if (!chain) throw new Error(`no devnet ${index}`);
  const viemChain = chainById(chain.chainId, chain.rpcUrl);
  // Receipts polled every 100 ms, not viem's 4 s: on 1 s blocks each of a swap's transactions would wait seconds.
  const pub = createPublicClient({ chain: viemChain, transport: http(chain.rpcUrl), pollingInterval: 100 });
  const send = async (
    key: Hex,
    address: Address,
    abi: Abi,
    functionName: string,
    args: unknown[],
    value = 0n,
  ) => {
    const wallet = createWalletClient({
      account: privateKeyToAccount(key),
      chain: viemChain,
      transport: http(chain.rpcUrl),
    });
    const hash = await wallet.writeContract({ address, abi, functionName, args, value } as never);
    const receipt = await pub.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    return receipt;
  };
  return { chain, pub, send };
}

/**
 * Deposits a fresh order on devnet-a, then the trader (its own filler) fills and proves it on devnet-b. Answers the
 * order's hash and the guid of the LayerZero packet carrying the proof.
 */
async function depositFillAndProve(): Promise<{ orderHash: Hex; guid: Hex }> {
  const a = side(0);
  const b = side(1);
  const now = (await a.pub.getBlock()).timestamp;
  nonce += 1n;
  const order: OrderTerms = {
    offerer: trader.address,
    recipient,
    inputToken: a.chain.tokens[0]?.address as Address,
    outputToken: b.chain.tokens[0]?.address as Address,
    inputAmount: AMOUNT,
    outputAmount: AMOUNT,
    inputChainId: BigInt(a.chain.chainId),
    outputChainId: BigInt(b.chain.chainId),
    filler: trader.address,
    nonce,
    openDeadline: now + 600n,
    fillDeadline: now + 3600n,
    protocolFee: 0n,
    exclusivityDeadline: now + 3600n,
  };
  const escrow = a.chain.contracts.escrow;
  const typedData = buildOrderTypedData(order, escrow);
  const signature = await trader.signTypedData(typedData as unknown as TypedDataDefinition);
  await a.send(ANVIL_KEYS[2], order.inputToken, usdcAbi, 'approve', [escrow, AMOUNT]);
  await a.send(ANVIL_KEYS[2], escrow, escrowAbi, 'deposit', [order, signature]);
  const app = b.chain.contracts.fill;
  await b.send(ANVIL_KEYS[2], order.outputToken, usdcAbi, 'approve', [app, AMOUNT]);
  const options = lzReceiveOptions(200_000n);
  const fee = (await b.pub.readContract({
    address: app,
    abi: appAbi,
    functionName: 'quoteProve',
    args: [[order], escrow, options],
  })) as bigint;
  const proved = await b.send(ANVIL_KEYS[2], app, appAbi, 'fillAndProve', [order, escrow, options], fee);
  const [sent] = parseEventLogs({
    abi: loadLzArtifact('EndpointV2').abi,
    eventName: 'PacketSent',
    logs: proved.logs,
  });
  if (!sent) throw new Error('fillAndProve sent no LayerZero packet');
  const { encodedPayload } = sent.args as unknown as { encodedPayload: Hex };
  return { orderHash: hashOrderTypedData(typedData), guid: decodeLzPacket(encodedPayload).guid };
}

const statusOf = (orderHash: Hex) =>
  side(0).pub.readContract({
    address: side(0).chain.contracts.escrow,
    abi: escrowAbi,
    functionName: 'orderStatus',
    args: [orderHash],
  }) as Promise<number>;

const SETTLED = 2;

describe('the devnet relay', () => {
  it('settles a fill proven on the other devnet', async () => {
    const { orderHash } = await depositFillAndProve();
    await until('escrow settled', async () => (await statusOf(orderHash)) === SETTLED);
    const balance = await side(1).pub.readContract({
      address: side(1).chain.tokens[0]?.address as Address,
      abi: usdcAbi,
      functionName: 'balanceOf',
      args: [recipient],
    });
    expect(balance).toBe(AMOUNT);
  });

  it('delivers what was sent while it was stopped once it is started again', async () => {
    await devnets.relay?.stop();
    expect(devnets.relay).toBeNull();
    const { orderHash } = await depositFillAndProve();
    expect(await statusOf(orderHash)).toBe(1);
    devnets.startRelay({ pollIntervalMs: 50 });
    await until('escrow settled after restart', async () => (await statusOf(orderHash)) === SETTLED);
  });

  it('executes again later a message whose delivery reverted (the escrow had no code for a while)', async () => {
    const a = side(0);
    await devnets.relay?.stop();
    const { orderHash } = await depositFillAndProve();
    // A paused token no longer makes a settlement revert (the escrow credits the payout); an escrow without code does.
    const restore = await takeEscrowCode(a.chain.rpcUrl, a.chain.contracts.escrow);
    const errors: ChainError[] = [];
    devnets.startRelay({
      pollIntervalMs: 50,
      retryBaseMs: 100,
      retryMaxMs: 400,
      onError: (e) => errors.push(e),
    });
    await until('the relay tried and failed twice', async () => errors.length >= 2);
    // (The order's status cannot be read while the escrow has no code: the relay's failures are the evidence.)
    await restore();
    await until(
      'escrow settled once it has its code again',
      async () => (await statusOf(orderHash)) === SETTLED,
    );
  });
});

/**
 * On 1 s blocks the relay sends a packet's four transactions before waiting for any: both DVNs' verifications, the
 * commit and lzReceive are mined in one block, in that order. A delivery that reverts in that path (an escrow without code)
 * is tried again step by step and delivered once the cause is gone.
 */
describe('the devnet relay on 1 s blocks', () => {
  let blocks: Devnets;
  let blocksDir: string;
  const delivered: LzDelivery[] = [];
  const errors: ChainError[] = [];

  beforeAll(async () => {
    blocksDir = mkdtempSync(path.join(tmpdir(), 'ferry-devnet-relay-blocks-'));
    blocks = await startDevnets({
      dataDir: blocksDir,
      ports: [0, 0],
      demoWallets: [trader.address],
      blockTime: 1,
      relay: { pollIntervalMs: 50, onDelivered: (d) => delivered.push(d) },
    });
    viewed = blocks.chains;
  }, 120_000);

  afterAll(async () => {
    viewed = [];
    await blocks?.stop();
    rmSync(blocksDir, { recursive: true, force: true });
  });

  /** Once `orderHash`'s escrow settled, the relay's delivery of packet `guid`. */
  const deliveryOf = async ({ orderHash, guid }: { orderHash: Hex; guid: Hex }) => {
    await until('escrow settled', async () => (await statusOf(orderHash)) === SETTLED);
    return until('the relay reported the delivery', async () =>
      delivered.find((d) => d.packet.guid === guid),
    );
  };

  /** Where a delivered packet's two verifications, its commit and its lzReceive were mined, in that order. */
  const stepsOf = async (delivery: LzDelivery) => {
    expect(delivery.pipelined).toBe(true);
    const a = side(0);
    const lz = blocks.chains[0]?.layerzero as LzChainDeployment;
    const receipt = await a.pub.getTransactionReceipt({ hash: delivery.receiveTx as Hex });
    expect(receipt.status).toBe('success');
    const range = { fromBlock: lz.startBlock, toBlock: receipt.blockNumber };
    const verifications = (
      await a.pub.getContractEvents({
        address: lz.receiveUln302,
        abi: loadLzArtifact('ReceiveUln302').abi,
        eventName: 'PayloadVerified',
        ...range,
      })
    ).filter((log) => (log.args as { proofHash: Hex }).proofHash === delivery.packet.payloadHash);
    const commits = (
      await a.pub.getContractEvents({
        address: lz.endpoint,
        abi: loadLzArtifact('EndpointV2').abi,
        eventName: 'PacketVerified',
        ...range,
      })
    ).filter((log) => (log.args as { payloadHash: Hex }).payloadHash === delivery.packet.payloadHash);
    expect(new Set(verifications.map((log) => (log.args as { dvn: Address }).dvn)).size).toBe(2);
    expect(commits).toHaveLength(1);
    const steps = [...verifications, ...commits].map((log) => ({
      block: log.blockNumber,
      index: log.transactionIndex,
      tx: log.transactionHash,
    }));
    steps.push({ block: receipt.blockNumber, index: receipt.transactionIndex, tx: receipt.transactionHash });
    expect(new Set(steps.map((step) => step.tx)).size).toBe(4);
    // verify, verify, commit, lzReceive, in chain order whatever blocks they fell in.
    const position = (step: { block: bigint; index: number }) => step.block * 10_000n + BigInt(step.index);
    const positions = steps.map(position);
    expect(positions).toEqual([...positions].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
    return steps;
  };

  it('mines both verifications, the commit and lzReceive of a packet in one block', async () => {
    // The four are signed first and broadcast back to back; a block can still be cut between two broadcasts (then
    // they span two blocks, in order, and the packet is delivered all the same). Up to three packets: one must land
    // in a single block.
    const blocksPerPacket: number[] = [];
    for (let packet = 0; packet < 3; packet++) {
      const steps = await stepsOf(await deliveryOf(await depositFillAndProve()));
      blocksPerPacket.push(new Set(steps.map((step) => step.block)).size);
      if (blocksPerPacket.at(-1) === 1) break;
    }
    expect(blocksPerPacket).toContain(1);
  });

  it('tries a delivery that reverted in one block again step by step, and delivers it once the escrow works', async () => {
    const a = side(0);
    await blocks.relay?.stop();
    const proved = await depositFillAndProve();
    const restore = await takeEscrowCode(a.chain.rpcUrl, a.chain.contracts.escrow);
    let broken = true;
    try {
      blocks.startRelay({
        pollIntervalMs: 50,
        retryBaseMs: 100,
        retryMaxMs: 400,
        onDelivered: (d) => delivered.push(d),
        onError: (e) => errors.push(e),
      });
      await until('the relay failed in one block, then step by step', async () => errors.length >= 2);
      // The one-block attempt's lzReceive reverted on chain; the next attempt's simulation refused it.
      expect(errors[0]?.message).toMatch(/in one block failed: lzReceive .* reverted/);
      expect(errors[1]?.message).toMatch(/lzReceive .* was refused/);
      await restore();
      broken = false;
      const delivery = await deliveryOf(proved);
      expect(delivery.pipelined).toBe(false);
      // The one-block attempt committed the packet: the step-by-step one only had lzReceive left.
      expect(delivery.commitGas).toBeUndefined();
      expect(delivery.dvnGas).toEqual([]);
    } finally {
      if (broken) await restore();
    }
  });
});

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('ferry devnet', () => {
  it('runs the relay in its own process: a fill settles with no Ferry API running', async () => {
    await devnets.stop();
    const ports = [await freePort(), await freePort()];
    const dataDir = mkdtempSync(path.join(tmpdir(), 'ferry-devnet-process-'));
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'ferry.js'), 'devnet'], {
      cwd: repoRoot,
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        DEVNET_PORT_A: String(ports[0]),
        DEVNET_PORT_B: String(ports[1]),
        LOG_LEVEL: 'silent',
        CHAIN_REGISTRY: '',
      },
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        err += chunk.toString();
      });
      const file = await until(`ferry devnet printed its registry (stderr: ${err})`, async () => {
        try {
          return JSON.parse(out) as RegistryFile;
        } catch {
          return null;
        }
      });
      expect(file.chains.map((c) => [c.messenger, c.layerzero?.eid])).toEqual([
        ['layerzero', 40901],
        ['layerzero', 40902],
      ]);
      viewed = file.chains;
      const { orderHash } = await depositFillAndProve();
      await until(
        'escrow settled by the devnet process',
        async () => (await statusOf(orderHash)) === SETTLED,
      );
    } finally {
      viewed = [];
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
