/**
 * Scenario 12: gas per order of a swap settled through LayerZero V2, on two anvils with LayerZero's own contracts
 * (EndpointV2, ULN302, two DVNs, Executor) and Ferry's apps wired and locked. Every step is a real transaction;
 * the figures are receipts' gasUsed.
 */
import { type Address, getAddress, type Hex, parseEventLogs } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { loadArtifact } from '../../src/chains/contract-artifacts.ts';
import { loadLzArtifact } from '../../src/chains/layerzero/lz-artifacts.ts';
import {
  deployLz,
  type LzChainClient,
  lzChainClient,
  writeLz,
} from '../../src/chains/layerzero/lz-chain-client.ts';
import { decodeLzPacket, type LzPacket } from '../../src/chains/layerzero/lz-packet.ts';
import { proveOptions, tokenRunsOf } from '../../src/chains/settlement/prove-options.ts';
import { type AnvilInstance, startAnvil } from '../../src/devnet/anvil-process.ts';
import { ANVIL_KEYS } from '../../src/devnet/devnet.ts';
import { commitLzVerification, dvnVerify, executeLzReceive } from '../../src/devnet/layerzero/lz-delivery.ts';
import { buildOrderTypedData, type OrderTerms } from '../../src/domain/order-typed-data.ts';
import {
  CONFIRMATIONS,
  DVN_KEYS,
  deployFerryLzChain,
  EXECUTOR_KEY,
  type FerryLzChain,
  wireAndLockFerryLzChains,
} from '../../test/support/ferry-lz-deploy.ts';
import { say } from '../harness/bench-settings.ts';
import { gasRow } from '../harness/gas-row.ts';
import { logRow } from '../harness/load-row.ts';
import type { BackendRun, ScenarioRow } from '../harness/report.ts';
import { gasPerOrder } from './gas-per-order.ts';
import { type Erc7683Gas, erc7683GasRows, measureErc7683Gas } from './lz-gas-7683.ts';

const [deployerKey, , offererKey, fillerKey, strangerKey] = ANVIL_KEYS;
const appAbi = loadArtifact('FerryApp').abi;
const escrowAbi = loadArtifact('FerryEscrow').abi;
const tokenAbi = loadArtifact('TestStablecoin').abi;

interface GasSide {
  anvil: AnvilInstance;
  ferry: FerryLzChain;
  token: Address;
  client(key: Hex): LzChainClient;
}

export interface LzGasResult {
  /** With an allowance the token decrements (as USDC does). */
  deposit: bigint;
  /** With an unlimited allowance the token leaves alone. */
  depositUnlimited: bigint;
  fill: bigint;
  fillAndProve: bigint;
  prove1: bigint;
  prove10: bigint;
  dvnVerify: bigint;
  dvnVerify10: bigint;
  commit: bigint;
  commit10: bigint;
  lzReceive1: bigint;
  lzReceive10: bigint;
  /** open and the ERC-7683 fill (lz-gas-7683.ts). */
  erc7683: Erc7683Gas;
}

async function startGasSide(chainId: number, eids: { eid: number; remoteEid: number }): Promise<GasSide> {
  const anvil = await startAnvil({ chainId });
  const client = (key: Hex) => lzChainClient(anvil.rpcUrl, chainId, key);
  const deployer = client(deployerKey);
  const ferry = await deployFerryLzChain({ rpcUrl: anvil.rpcUrl, chainId }, deployerKey, eids, 10);
  const { address } = await deployLz(deployer, 'USDC', loadArtifact('TestStablecoin'), [
    'Devnet USD Coin',
    'USDC',
  ]);
  const token = getAddress(address);
  for (const key of [offererKey, fillerKey]) {
    const who = privateKeyToAccount(key).address;
    await writeLz(deployer, { address: token, abi: tokenAbi, functionName: 'mint', args: [who, 10n ** 15n] });
  }
  return { anvil, ferry, token, client };
}

function packetOf(logs: Parameters<typeof parseEventLogs>[0]['logs']): LzPacket {
  const [sent] = parseEventLogs({ abi: loadLzArtifact('EndpointV2').abi, eventName: 'PacketSent', logs });
  if (!sent) throw new Error('no PacketSent');
  return decodeLzPacket((sent.args as { encodedPayload: Hex }).encodedPayload);
}

/** Verifies (both DVNs), commits and executes `packet` on `to`: the gas of each step. */
async function deliver(to: GasSide, packet: LzPacket) {
  const dvnGas: bigint[] = [];
  for (const [i, dvn] of to.ferry.lz.dvns.entries()) {
    const key = DVN_KEYS[i] as Hex;
    dvnGas.push(await dvnVerify(to.client(key), key, dvn, to.ferry.lz, packet, CONFIRMATIONS));
  }
  const commit = await commitLzVerification(to.client(EXECUTOR_KEY), to.ferry.lz, packet);
  const received = await executeLzReceive(to.client(EXECUTOR_KEY), to.ferry.lz, packet);
  return { dvn: dvnGas[0] ?? 0n, commit, receive: received.gasUsed };
}

/** The swap's calls on the two chains: orders, deposits (as Ferry's worker), fills and proofs (as the LP). */
async function gasActors(a: GasSide, b: GasSide) {
  const offerer = a.client(offererKey);
  const filler = b.client(fillerKey);
  const prover = b.client(strangerKey);
  const depositor = a.client(strangerKey);
  const approve = (c: LzChainClient, token: Address, spender: Address) =>
    writeLz(c, { address: token, abi: tokenAbi, functionName: 'approve', args: [spender, 2n ** 255n] });
  await approve(offerer, a.token, a.ferry.escrow);
  await approve(filler, b.token, b.ferry.app);
  const maxUint = 2n ** 256n - 1n;
  const escrow = a.ferry.escrow;
  const app = (c: LzChainClient, functionName: string, args: readonly unknown[], value?: bigint) =>
    writeLz(c, { address: b.ferry.app, abi: appAbi, functionName, args, ...(value ? { value } : {}) });
  const quote = async (orders: OrderTerms[], options: Hex) =>
    (await prover.publicClient.readContract({
      address: b.ferry.app,
      abi: appAbi,
      functionName: 'quoteProve',
      args: [orders, escrow, options],
    })) as bigint;
  let nonce = 0n;
  return {
    /** An unlimited allowance, which the test token (like many) does not decrement on transferFrom. */
    unlimited: () =>
      writeLz(offerer, {
        address: a.token,
        abi: tokenAbi,
        functionName: 'approve',
        args: [a.ferry.escrow, maxUint],
      }),
    async order(): Promise<OrderTerms> {
      const t = (await offerer.publicClient.getBlock()).timestamp;
      nonce += 1n;
      return {
        offerer: offerer.account,
        // A recipient that already holds the token: a steady-state transfer.
        recipient: offerer.account,
        inputToken: a.token,
        outputToken: b.token,
        inputAmount: 100_000_000n,
        outputAmount: 99_900_000n,
        inputChainId: BigInt(a.ferry.lz.chainId),
        outputChainId: BigInt(b.ferry.lz.chainId),
        filler: filler.account,
        nonce,
        openDeadline: t + 600n,
        fillDeadline: t + 3600n,
        protocolFee: 0n,
        exclusivityDeadline: t + 660n,
      };
    },
    /** Submitted by a third party, as Ferry's worker does: the offerer's signature is the authorisation. */
    async deposit(o: OrderTerms): Promise<bigint> {
      const signature = await privateKeyToAccount(offererKey).signTypedData(
        buildOrderTypedData(o, escrow) as never,
      );
      const args = [o, signature];
      return (await writeLz(depositor, { address: escrow, abi: escrowAbi, functionName: 'deposit', args }))
        .gasUsed;
    },
    fill: async (o: OrderTerms) => (await app(filler, 'fill', [o, escrow])).gasUsed,
    async fillAndProve(o: OrderTerms) {
      const options = proveOptions(1);
      return app(filler, 'fillAndProve', [o, escrow, options], await quote([o], options));
    },
    async prove(orders: OrderTerms[]) {
      const options = proveOptions(orders.length, tokenRunsOf(orders));
      return app(prover, 'prove', [orders, escrow, options], await quote(orders, options));
    },
  };
}

/** Deploys, wires and locks both chains, runs a warm-up swap, then measures single and batched proofs. */
export async function measureLzGas(say: (line: string) => void): Promise<LzGasResult> {
  const [a, b] = await Promise.all([
    startGasSide(930_001, { eid: 50_001, remoteEid: 50_002 }),
    startGasSide(930_002, { eid: 50_002, remoteEid: 50_001 }),
  ]);
  try {
    await wireAndLockFerryLzChains(
      [a, b].map((side) => ({
        name: `bench-${side.anvil.chainId}`,
        rpcUrl: side.anvil.rpcUrl,
        chainId: side.anvil.chainId,
        ferry: side.ferry,
      })),
      deployerKey,
    );
    say('   LayerZero and Ferry deployed on two anvils, apps wired and locked');
    const swap = await gasActors(a, b);
    // Warm-up: the first deposit, fill and message on the path (cold balances, the path's first nonce).
    const warm = await swap.order();
    await swap.deposit(warm);
    await deliver(a, packetOf((await swap.fillAndProve(warm)).logs));
    // An order left in the escrow, so it always holds the token (as a busy escrow does).
    await swap.deposit(await swap.order());

    const one = await swap.order();
    const depositGas = await swap.deposit(one);
    const sent = await swap.fillAndProve(one);
    const single = await deliver(a, packetOf(sent.logs));

    await swap.unlimited();
    const batch: OrderTerms[] = [];
    let fillGas = 0n;
    let depositUnlimited = 0n;
    for (let i = 0; i < 10; i++) {
      const o = await swap.order();
      depositUnlimited = await swap.deposit(o);
      fillGas = await swap.fill(o);
      batch.push(o);
    }
    const proven10 = await swap.prove(batch);
    const batched = await deliver(a, packetOf(proven10.logs));
    // prove at batch 1: a recorded fill proven on its own (Ferry's fallback path).
    const lone = await swap.order();
    await swap.deposit(lone);
    await swap.fill(lone);
    const proven1 = await swap.prove([lone]);
    await deliver(a, packetOf(proven1.logs));
    const erc7683 = await measureErc7683Gas({
      a: { token: a.token, escrow: a.ferry.escrow, app: a.ferry.app, client: a.client },
      b: { token: b.token, app: b.ferry.app, client: b.client },
      order: swap.order,
      deliver: async (logs) => (await deliver(a, packetOf(logs))).receive,
    });
    return {
      deposit: depositGas,
      depositUnlimited,
      fill: fillGas,
      fillAndProve: sent.gasUsed,
      prove1: proven1.gasUsed,
      prove10: proven10.gasUsed,
      dvnVerify: single.dvn,
      dvnVerify10: batched.dvn,
      commit: single.commit,
      commit10: batched.commit,
      lzReceive1: single.receive,
      lzReceive10: batched.receive,
      erc7683,
    };
  } finally {
    await Promise.all([a.anvil.stop(), b.anvil.stop()]);
  }
}

/**
 * The rows of scenario 12. "Whole swap" counts every transaction the order causes on both chains: the deposit, the
 * fill and the message send, both DVNs' verifications, the commit and lzReceive; at batch 10 the message's share is
 * a tenth. The LayerZero workers' part (verify, commit, lzReceive) is paid by them and recouped through the
 * messaging fee; the "Ferry + LP" totals leave it out.
 */
export function lzGasRows(r: LzGasResult): ScenarioRow[] {
  const n = (x: bigint) => Number(x);
  const { whole1, whole10, direct1, direct10 } = gasPerOrder(r);
  const { erc7683, ...steps } = r;
  const raw = Object.fromEntries(
    [...Object.entries(steps), ...Object.entries(erc7683).map(([k, v]) => [`erc7683.${k}`, v] as const)].map(
      ([k, v]) => [k, Number(v)],
    ),
  );
  return [
    gasRow(
      '12a',
      'gas: deposit (input chain, Ferry worker)',
      n(r.deposit),
      100_000,
      `steady state (the escrow already holds the token), the token decrementing the allowance as USDC does; with an unlimited allowance it leaves alone: ${n(r.depositUnlimited).toLocaleString('en-US')}`,
      raw,
    ),
    gasRow(
      '12b',
      'gas: fillAndProve (output chain, LP)',
      n(r.fillAndProve),
      null,
      `fill alone ${n(r.fill).toLocaleString('en-US')}; the rest is the LayerZero send`,
    ),
    gasRow(
      '12c',
      'gas: prove, batch 1 (per order)',
      n(r.prove1),
      null,
      'a recorded fill proven on its own (Ferry worker fallback)',
    ),
    gasRow(
      '12d',
      'gas: prove, batch 10 (per order)',
      n(r.prove10) / 10,
      null,
      `whole message ${n(r.prove10).toLocaleString('en-US')}`,
    ),
    gasRow(
      '12e',
      'gas: DVN verify, per DVN (batch 1 / 10 per message)',
      n(r.dvnVerify),
      null,
      `two DVNs per message; batch 10: ${n(r.dvnVerify10).toLocaleString('en-US')} per DVN per message`,
    ),
    gasRow(
      '12f',
      'gas: commitVerification, per message',
      n(r.commit),
      null,
      `batch 10: ${n(r.commit10).toLocaleString('en-US')}`,
    ),
    gasRow(
      '12g',
      'gas: lzReceive, batch 1',
      n(r.lzReceive1),
      null,
      'executor: endpoint + FerryApp + escrow settle + token transfer',
    ),
    gasRow(
      '12h',
      'gas: lzReceive, batch 10 (per order)',
      n(r.lzReceive10) / 10,
      null,
      `whole message ${n(r.lzReceive10).toLocaleString('en-US')}`,
    ),
    gasRow(
      '12i',
      'gas: whole swap per order, batch 1',
      whole1,
      300_000,
      `deposit + fillAndProve + 2 × DVN verify + commit + lzReceive; Ferry + LP transactions only (deposit + fillAndProve): ${direct1.toLocaleString('en-US')}`,
    ),
    gasRow(
      '12j',
      'gas: whole swap per order, batch 10',
      Math.round(whole10),
      200_000,
      `deposit + fill + (prove + 2 × DVN verify + commit + lzReceive) / 10; Ferry + LP transactions only (deposit + fill + prove / 10): ${Math.round(direct10).toLocaleString('en-US')}`,
    ),
    ...erc7683GasRows(erc7683, r),
  ];
}

/** Scenario 12: gas per order through LayerZero V2, on two anvils of its own. */
export async function runLzGas(): Promise<BackendRun> {
  say('\n== gas per order through LayerZero V2 (12): two anvils, LayerZero and Ferry deployed, apps locked');
  const scenarios = lzGasRows(await measureLzGas(say));
  for (const row of scenarios) logRow(row);
  return { backend: 'gas per order (LayerZero V2 on anvil, receipts gasUsed)', seed: {}, scenarios };
}
