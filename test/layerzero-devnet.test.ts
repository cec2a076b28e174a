import { readFileSync } from 'node:fs';
import { type Abi, type Address, getAddress, type Hex, parseEventLogs, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChainError } from '../src/chains/chain-error.ts';
import { loadLzArtifact } from '../src/chains/layerzero/lz-artifacts.ts';
import {
  deployLz,
  type LzChainClient,
  lzChainClient,
  writeLz,
} from '../src/chains/layerzero/lz-chain-client.ts';
import type { LzChainDeployment } from '../src/chains/layerzero/lz-chain-deployment.ts';
import { requiredDvnsConfig, setLzOAppConfig } from '../src/chains/layerzero/lz-oapp-config.ts';
import {
  addressToBytes32,
  decodeLzPacket,
  type LzPacket,
  lzReceiveOptions,
} from '../src/chains/layerzero/lz-packet.ts';
import { type AnvilInstance, startAnvil } from '../src/devnet/anvil-process.ts';
import { ANVIL_KEYS, DEVNET_DEPLOYER_KEY } from '../src/devnet/devnet.ts';
import { DEVNET_DVN_KEYS, DEVNET_EXECUTOR_KEY } from '../src/devnet/devnet-layerzero.ts';
import {
  commitLzVerification,
  dvnVerify,
  executeLzReceive,
  isLzVerifiable,
} from '../src/devnet/layerzero/lz-delivery.ts';
import { deployLzChain, wireLzPath } from '../src/devnet/layerzero/lz-deploy.ts';
import { type LzDelivery, type LzRelay, startLzRelay } from '../src/devnet/layerzero/lz-relay.ts';
import { compileSources } from '../src/devnet/solc-compile.ts';

/** The devnets' own DVN keys (anvil accounts 6 and 7) and executor key (account 8): devnets only. */
const DVN_KEYS = DEVNET_DVN_KEYS;
const EXECUTOR_KEY = DEVNET_EXECUTOR_KEY;
/** Account 4 holds neither DVN's signer role: its signatures are forgeries. */
const FORGER_KEY: Hex = ANVIL_KEYS[4];
const CONFIRMATIONS = 1n;
const RECEIVE_GAS = 200_000n;
const OAPP_SOURCE = 'test/fixtures/layerzero/TestPingOApp.sol';
/** A deadline for waiting on the relay: generous, never what a test asserts on. */
const RELAY_DEADLINE_MS = 20_000;

interface Side {
  anvil: AnvilInstance;
  deployer: LzChainClient;
  executor: LzChainClient;
  dvns: LzChainClient[];
  lz: LzChainDeployment;
  oapp: Address;
}

let sides: [Side, Side];
let outsider: Address;
let oappAbi: Abi;
const gas: Record<string, bigint> = {};
const deliveryMs: number[] = [];
/** Gas of every ping: the first send on a path pays for its nonce slot, later ones show the steady cost. */
const sendGas: bigint[] = [];

async function setUpSide(chainId: number, eid: number, oapp: { abi: Abi; bytecode: Hex }): Promise<Side> {
  const anvil = await startAnvil({ chainId });
  const client = (key: Hex) => lzChainClient(anvil.rpcUrl, chainId, key);
  const deployer = client(DEVNET_DEPLOYER_KEY);
  const lz = await deployLzChain({ deployer, eid, dvnKeys: DVN_KEYS, executorKey: EXECUTOR_KEY });
  const { address } = await deployLz(deployer, 'TestPingOApp', oapp, [lz.endpoint, deployer.account]);
  return { anvil, deployer, executor: client(EXECUTOR_KEY), dvns: DVN_KEYS.map(client), lz, oapp: address };
}

async function setPeer(side: Side, oapp: Address, remoteEid: number, peer: Address) {
  await writeLz(side.deployer, {
    address: oapp,
    abi: oappAbi,
    functionName: 'setPeer',
    args: [remoteEid, addressToBytes32(peer)],
  });
}

/** Sends `text` from an OApp on `from` to `to`'s OApp and answers the packet as the endpoint emitted it. */
async function ping(from: Side, to: Side, text: string, oapp = from.oapp): Promise<LzPacket> {
  const receipt = await writeLz(from.deployer, {
    address: oapp,
    abi: oappAbi,
    functionName: 'ping',
    args: [to.lz.eid, toHex(text), lzReceiveOptions(RECEIVE_GAS)],
  });
  sendGas.push(receipt.gasUsed);
  const [sent] = parseEventLogs({
    abi: loadLzArtifact('EndpointV2').abi,
    eventName: 'PacketSent',
    logs: receipt.logs,
  }) as unknown as { args: { encodedPayload: Hex } }[];
  if (!sent) throw new Error('no PacketSent in the ping receipt');
  return decodeLzPacket(sent.args.encodedPayload);
}

async function received(side: Side): Promise<{ count: bigint; last: Hex }> {
  const read = (functionName: string) =>
    side.deployer.publicClient.readContract({ address: side.oapp, abi: oappAbi, functionName });
  return { count: (await read('receivedCount')) as bigint, last: (await read('lastMessage')) as Hex };
}

interface RelayReport {
  delivery?: LzDelivery;
  /** The last of `errors`. */
  error?: ChainError;
  errors: ChainError[];
}

/**
 * Runs a relay from the current blocks until it has delivered `guid` or failed to `failures` times, then stops it.
 * Answers what it reported.
 */
async function relayUntil(
  guidOf: () => Promise<Hex>,
  verifyingDvns?: number[],
  failures = 1,
): Promise<RelayReport> {
  const chains = await Promise.all(
    sides.map(async (side) => ({
      rpcUrl: side.anvil.rpcUrl,
      deployment: side.lz,
      fromBlock: (await side.deployer.publicClient.getBlockNumber()) + 1n,
    })),
  );
  const reports = new Map<Hex, RelayReport>();
  let notify = () => {};
  const relay: LzRelay = startLzRelay({
    chains,
    dvnKeys: DVN_KEYS,
    executorKey: EXECUTOR_KEY,
    confirmations: CONFIRMATIONS,
    pollIntervalMs: 20,
    retryBaseMs: 100,
    ...(verifyingDvns ? { verifyingDvns } : {}),
    onDelivered: (delivery) => {
      reports.set(delivery.packet.guid, {
        delivery,
        errors: reports.get(delivery.packet.guid)?.errors ?? [],
      });
      notify();
    },
    onError: (error, packet) => {
      const errors = [...(reports.get(packet.guid)?.errors ?? []), error];
      reports.set(packet.guid, { error, errors });
      notify();
    },
  });
  try {
    const guid = await guidOf();
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`relay reported nothing on ${guid}`)),
        RELAY_DEADLINE_MS,
      );
      notify = () => {
        const report = reports.get(guid);
        if (!report || (!report.delivery && report.errors.length < failures)) return;
        clearTimeout(timer);
        resolve(report);
      };
      notify();
    });
  } finally {
    await relay.stop();
  }
}

beforeAll(async () => {
  const { contracts } = compileSources({ [OAPP_SOURCE]: { content: readFileSync(OAPP_SOURCE, 'utf8') } });
  const oapp = contracts.find((c) => c.contractName === 'TestPingOApp');
  if (!oapp) throw new Error('TestPingOApp did not compile');
  oappAbi = oapp.abi;
  sides = await Promise.all([setUpSide(41_101, 40_101, oapp), setUpSide(41_102, 40_102, oapp)]);
  const [a, b] = sides;
  await Promise.all([
    wireLzPath(a.deployer, a.lz, b.lz, CONFIRMATIONS),
    wireLzPath(b.deployer, b.lz, a.lz, CONFIRMATIONS),
  ]);
  await setPeer(a, a.oapp, b.lz.eid, b.oapp);
  await setPeer(b, b.oapp, a.lz.eid, a.oapp);
  // A's OApp pins its own configs for B; B's follows its endpoint's defaults: each direction crosses both kinds.
  await setLzOAppConfig(a.deployer, a.lz, a.oapp, b.lz.eid, requiredDvnsConfig(a.lz.dvns, CONFIRMATIONS));
  // A second OApp on chain A that knows B's OApp, but B's OApp does not know it.
  outsider = (await deployLz(a.deployer, 'outsider TestPingOApp', oapp, [a.lz.endpoint, a.deployer.account]))
    .address;
  await setPeer(a, outsider, b.lz.eid, b.oapp);
}, 120_000);

afterAll(async () => {
  // The measurement the settlement issue plans with: printed, never asserted on.
  if (sendGas.length > 0)
    console.info('LayerZero devnet gas', { send: sendGas, ...gas }, 'delivery ms', deliveryMs);
  await Promise.all((sides ?? []).map((side) => side.anvil.stop()));
});

describe('LayerZero V2 on two anvil devnets', () => {
  it('deploys LayerZero contracts with two required DVNs holding separate keys', async () => {
    const [a, b] = sides;
    expect(a.lz.dvns.map((d) => d.signer)).toEqual(DVN_KEYS.map((key) => privateKeyToAccount(key).address));
    expect(new Set(a.lz.dvns.map((d) => d.signer)).size).toBe(2);
    const config = (await a.deployer.publicClient.readContract({
      address: a.lz.receiveUln302,
      abi: loadLzArtifact('ReceiveUln302').abi,
      functionName: 'getUlnConfig',
      args: [a.oapp, b.lz.eid],
    })) as { requiredDVNCount: number; requiredDVNs: readonly Address[]; confirmations: bigint };
    expect(config.requiredDVNCount).toBe(2);
    expect([...config.requiredDVNs].sort()).toEqual(a.lz.dvns.map((d) => getAddress(d.address)).sort());
    expect(config.confirmations).toBe(CONFIRMATIONS);

    // A's OApp holds its own config on both libraries (a count of 0 would mean "use the default", as B's does).
    const ownConfig = async (
      side: Side,
      library: Address,
      name: 'SendUln302' | 'ReceiveUln302',
      eid: number,
    ) =>
      (await side.deployer.publicClient.readContract({
        address: library,
        abi: loadLzArtifact(name).abi,
        functionName: 'getAppUlnConfig',
        args: [side.oapp, eid],
      })) as { requiredDVNCount: number; requiredDVNs: readonly Address[] };
    for (const library of [
      await ownConfig(a, a.lz.sendUln302, 'SendUln302', b.lz.eid),
      await ownConfig(a, a.lz.receiveUln302, 'ReceiveUln302', b.lz.eid),
    ]) {
      expect(library.requiredDVNCount).toBe(2);
      expect(library.requiredDVNs).toEqual(requiredDvnsConfig(a.lz.dvns, CONFIRMATIONS).requiredDVNs);
    }
    expect((await ownConfig(b, b.lz.receiveUln302, 'ReceiveUln302', a.lz.eid)).requiredDVNCount).toBe(0);
  });

  it('delivers a message both ways through both DVNs and the executor', async () => {
    const [a, b] = sides;
    const there = await relayUntil(async () => (await ping(a, b, 'fill 1')).guid);
    expect(there.error).toBeUndefined();
    expect(there.delivery?.stage).toBe('executed');
    expect(await received(b)).toEqual({ count: 1n, last: toHex('fill 1') });
    gas.dvnVerify = there.delivery?.dvnGas[0] ?? 0n;
    gas.commitVerification = there.delivery?.commitGas ?? 0n;
    gas.lzReceive = there.delivery?.receiveGas ?? 0n;
    deliveryMs.push(there.delivery?.elapsedMs ?? -1);

    const back = await relayUntil(async () => (await ping(b, a, 'fill batch 7')).guid);
    expect(back.delivery?.stage).toBe('executed');
    deliveryMs.push(back.delivery?.elapsedMs ?? -1);
    expect(await received(a)).toEqual({ count: 1n, last: toHex('fill batch 7') });
  });

  it('refuses a packet verified by one DVN of two, a forged verification and an altered message', async () => {
    const [a, b] = sides;
    let packet: LzPacket | undefined;
    const partial = await relayUntil(async () => {
      packet = await ping(a, b, 'fill 2');
      return packet.guid;
    }, [0]);
    expect(partial.delivery?.stage).toBe('verified');
    if (!packet) throw new Error('no packet');
    const before = await received(b);

    expect(await isLzVerifiable(b.executor, b.lz, packet, CONFIRMATIONS)).toBe(false);
    await expect(commitLzVerification(b.executor, b.lz, packet)).rejects.toThrow(/LZ_ULN_Verifying/);
    // Not committed: the endpoint holds no hash for this nonce.
    await expect(executeLzReceive(b.executor, b.lz, packet)).rejects.toThrow(/LZ_InvalidNonce/);

    // Signed by a key that is not DVN 2's signer: the DVN contract drops the instruction.
    const dvn2 = b.lz.dvns[1]!;
    await expect(dvnVerify(b.dvns[1]!, FORGER_KEY, dvn2, b.lz, packet, CONFIRMATIONS)).rejects.toThrow(
      /did not verify/,
    );
    expect(await isLzVerifiable(b.executor, b.lz, packet, CONFIRMATIONS)).toBe(false);
    expect(await received(b)).toEqual(before);

    // The second DVN's own signature completes the quorum; the executor still cannot alter the message.
    await dvnVerify(b.dvns[1]!, DVN_KEYS[1]!, dvn2, b.lz, packet, CONFIRMATIONS);
    expect(await isLzVerifiable(b.executor, b.lz, packet, CONFIRMATIONS)).toBe(true);
    await commitLzVerification(b.executor, b.lz, packet);
    const altered = { ...packet, message: toHex('fill 2 for twice the amount') };
    await expect(executeLzReceive(b.executor, b.lz, altered)).rejects.toThrow(/LZ_PayloadHashNotFound/);
    expect(await received(b)).toEqual(before);
    await executeLzReceive(b.executor, b.lz, packet);
    expect(await received(b)).toEqual({ count: before.count + 1n, last: toHex('fill 2') });
  });

  it('refuses to deliver a packet twice', async () => {
    const [a, b] = sides;
    let packet: LzPacket | undefined;
    const first = await relayUntil(async () => {
      packet = await ping(a, b, 'fill 3');
      return packet.guid;
    });
    expect(first.delivery?.stage).toBe('executed');
    if (!packet) throw new Error('no packet');
    const after = await received(b);

    await expect(executeLzReceive(b.executor, b.lz, packet)).rejects.toThrow(/LZ_PayloadHashNotFound/);
    // Even re-verified by both DVNs, the endpoint will not take a nonce it has already delivered.
    for (const [i, dvn] of b.lz.dvns.entries()) {
      await dvnVerify(b.dvns[i]!, DVN_KEYS[i]!, dvn, b.lz, packet, CONFIRMATIONS);
    }
    await expect(commitLzVerification(b.executor, b.lz, packet)).rejects.toThrow(/LZ_PathNotVerifiable/);
    await expect(executeLzReceive(b.executor, b.lz, packet)).rejects.toThrow(/LZ_PayloadHashNotFound/);
    expect(await received(b)).toEqual(after);
  });

  it('refuses a message from an OApp that is not the receiver’s peer', async () => {
    const [a, b] = sides;
    const before = await received(b);
    const report = await relayUntil(
      async () => (await ping(a, b, 'forged fill', outsider)).guid,
      undefined,
      2,
    );
    expect(report.delivery).toBeUndefined();
    // The first attempt sends every step unsimulated: the commit reverts on chain. The next goes step by step and
    // the commit's simulation names the endpoint's refusal.
    expect(report.errors[0]?.message).toMatch(/in one block failed: commitVerification .* reverted/);
    expect(report.error).toBeInstanceOf(ChainError);
    expect(report.error?.message).toMatch(/commitVerification .* refused: LZ_PathNotInitializable/);
    expect(await received(b)).toEqual(before);

    // Nor can anyone but the endpoint call the OApp's lzReceive directly.
    const origin = { srcEid: a.lz.eid, sender: addressToBytes32(a.oapp), nonce: 99n };
    await expect(
      writeLz(b.deployer, {
        address: b.oapp,
        abi: oappAbi,
        functionName: 'lzReceive',
        args: [origin, toHex(1n, { size: 32 }), toHex('forged fill'), b.deployer.account, '0x'],
      }),
    ).rejects.toThrow(/OnlyEndpoint/);
    expect(await received(b)).toEqual(before);
  });
});
