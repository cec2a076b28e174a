/**
 * Scenario 12, ERC-7683 rows: the offerer opening its own order on chain (`open`, no signature: the call is the
 * authorisation) and a filler that knows only the standard calling FerryApp's `fill(orderId, originData,
 * fillerData)`, with empty fillerData (fill only) and with LayerZero options (fill and prove in one call). Runs on
 * the chains scenario 12 deployed and warmed up (lz-gas.ts), so every figure is a steady-state receipt's gasUsed.
 */
import { type Address, encodeAbiParameters, type Hex, parseEventLogs } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { loadArtifact } from '../../src/chains/contract-artifacts.ts';
import { deployLz, type LzChainClient, writeLz } from '../../src/chains/layerzero/lz-chain-client.ts';
import { proveOptions } from '../../src/chains/settlement/prove-options.ts';
import { ANVIL_KEYS, DEVNET_FEE_RECIPIENT } from '../../src/devnet/devnet.ts';
import { buildOrderTypedData, ORDER_TYPE, type OrderTerms } from '../../src/domain/order-typed-data.ts';
import { gasRow } from '../harness/gas-row.ts';
import type { ScenarioRow } from '../harness/report.ts';

const [deployerKey, , offererKey, fillerKey] = ANVIL_KEYS;
const appAbi = loadArtifact('FerryApp').abi;
const escrowAbi = loadArtifact('FerryEscrow').abi;
const tokenAbi = loadArtifact('TestStablecoin').abi;
/** The protocol fee of the second escrow `open` is measured on with a fee (0.05 %). */
export const FEE_BPS = 5n;
const SETTLED = 2;

/** What lz-gas.ts hands over: both chains' clients and contracts, and its order factory (fee 0, steady state). */
export interface Erc7683Sides {
  a: { token: Address; escrow: Address; app: Address; client(key: Hex): LzChainClient };
  b: { token: Address; app: Address; client(key: Hex): LzChainClient };
  order(): Promise<OrderTerms>;
  /** Delivers the proof a receipt sent to chain A (both DVNs, commit, lzReceive): lzReceive's gas. */
  deliver(logs: Parameters<typeof parseEventLogs>[0]['logs']): Promise<bigint>;
}

export interface Erc7683Gas {
  /** open() on the bench's escrow (fee 0), allowance decremented as USDC does: compare with deposit. */
  open: bigint;
  /** open() on an escrow deployed with FEE_BPS, the order carrying that fee. */
  openWithFee: bigint;
  /** deposit() (signed, third party) on that fee escrow, next to openWithFee. */
  depositWithFee: bigint;
  /** fill(orderId, originData, '0x'): fill only. */
  fill: bigint;
  /** fill(orderId, originData, options): fill and prove in one call. */
  fillAndProve: bigint;
  /** lzReceive of the proof that fill(…, options) sent: the escrow settled the opened order. */
  lzReceive: bigint;
}

/** Ferry's Order as ERC-7683 orderData. */
const orderData = (o: OrderTerms): Hex =>
  encodeAbiParameters([{ type: 'tuple', components: ORDER_TYPE }], [o]);
/** The fill instruction's originData: abi.encode(order, escrow). */
const originData = (o: OrderTerms, escrow: Address): Hex =>
  encodeAbiParameters([{ type: 'tuple', components: ORDER_TYPE }, { type: 'address' }], [o, escrow]);

/** The orderHash a receipt's Deposited (emitted with Open by every deposit) names. */
function depositedHash(logs: Parameters<typeof parseEventLogs>[0]['logs']): Hex {
  const [d] = parseEventLogs({ abi: escrowAbi, eventName: 'Deposited', logs });
  if (!d) throw new Error('no Deposited');
  return (d.args as { orderHash: Hex }).orderHash;
}

/** Measures open, open and deposit with a fee, and ERC-7683 fill with and without options (see Erc7683Gas). */
export async function measureErc7683Gas(s: Erc7683Sides): Promise<Erc7683Gas> {
  const offerer = s.a.client(offererKey as Hex);
  const filler = s.b.client(fillerKey as Hex);
  const stranger = s.a.client(ANVIL_KEYS[4] as Hex);
  // A finite allowance the token decrements, as 12a's deposit has (lz-gas.ts left an unlimited one).
  const approve = (escrow: Address) =>
    writeLz(offerer, {
      address: s.a.token,
      abi: tokenAbi,
      functionName: 'approve',
      args: [escrow, 2n ** 255n],
    });
  await approve(s.a.escrow);
  const typeHash = (await offerer.publicClient.readContract({
    address: s.a.escrow,
    abi: escrowAbi,
    functionName: 'ORDER_TYPEHASH',
  })) as Hex;
  const open = async (escrow: Address, o: OrderTerms) =>
    writeLz(offerer, {
      address: escrow,
      abi: escrowAbi,
      functionName: 'open',
      args: [{ fillDeadline: Number(o.fillDeadline), orderDataType: typeHash, orderData: orderData(o) }],
    });

  // Open on the bench's escrow, then a standard filler fills it (fill only), and another with options.
  const onlyFilled = await s.order();
  const opened = await open(s.a.escrow, onlyFilled);
  const fill7683 = async (o: OrderTerms, orderId: Hex, options: Hex) => {
    const value = options === '0x' ? 0n : await quoteProve(filler, s.b.app, o, s.a.escrow, options);
    return writeLz(filler, {
      address: s.b.app,
      abi: appAbi,
      functionName: 'fill',
      args: [orderId, originData(o, s.a.escrow), options],
      ...(value ? { value } : {}),
    });
  };
  const filledOnly = await fill7683(onlyFilled, depositedHash(opened.logs), '0x');
  const proven = await s.order();
  const provenId = depositedHash((await open(s.a.escrow, proven)).logs);
  const filledAndProven = await fill7683(proven, provenId, proveOptions(1));
  const lzReceive = await s.deliver(filledAndProven.logs);
  const status = await offerer.publicClient.readContract({
    address: s.a.escrow,
    abi: escrowAbi,
    functionName: 'orderStatus',
    args: [provenId],
  });
  if (Number(status) !== SETTLED)
    throw new Error(`ERC-7683 fill and prove: order status ${status}, not settled`);

  // A second escrow on A with a fee (settled by A's app, so Open names B's app; nothing settles it here).
  const feeEscrow = (
    await deployLz(s.a.client(deployerKey as Hex), 'FerryEscrow', loadArtifact('FerryEscrow'), [
      s.a.app,
      10n,
      DEVNET_FEE_RECIPIENT,
      FEE_BPS,
    ])
  ).address;
  await approve(feeEscrow);
  const withFee = async () => {
    const o = await s.order();
    return { ...o, protocolFee: (o.inputAmount * FEE_BPS) / 10_000n };
  };
  // Warm-up: the fee escrow's first deposit makes its token balance non-zero.
  await open(feeEscrow, await withFee());
  const openWithFee = (await open(feeEscrow, await withFee())).gasUsed;
  const signedFee = await withFee();
  const signature = await privateKeyToAccount(offererKey as Hex).signTypedData(
    buildOrderTypedData(signedFee, feeEscrow) as never,
  );
  const depositWithFee = (
    await writeLz(stranger, {
      address: feeEscrow,
      abi: escrowAbi,
      functionName: 'deposit',
      args: [signedFee, signature],
    })
  ).gasUsed;
  return {
    open: opened.gasUsed,
    openWithFee,
    depositWithFee,
    fill: filledOnly.gasUsed,
    fillAndProve: filledAndProven.gasUsed,
    lzReceive,
  };
}

async function quoteProve(c: LzChainClient, app: Address, o: OrderTerms, escrow: Address, options: Hex) {
  return (await c.publicClient.readContract({
    address: app,
    abi: appAbi,
    functionName: 'quoteProve',
    args: [[o], escrow, options],
  })) as bigint;
}

const fmt = (x: number) => x.toLocaleString('en-US');

/** Rows 12k–12m; `deposit` and `fill`/`fillAndProve` are 12a's and 12b's, for the notes' comparisons. */
export function erc7683GasRows(
  r: Erc7683Gas,
  base: { deposit: bigint; fill: bigint; fillAndProve: bigint },
): ScenarioRow[] {
  const n = Number;
  return [
    gasRow(
      '12k',
      'gas: open (ERC-7683, the offerer opens its own order, input chain)',
      n(r.open),
      null,
      `no signature, fee 0 as 12a (deposit ${fmt(n(base.deposit))}); on an escrow with a ${FEE_BPS} bps fee: open ${fmt(n(r.openWithFee))}, deposit ${fmt(n(r.depositWithFee))}`,
    ),
    gasRow(
      '12l',
      'gas: ERC-7683 fill, empty fillerData (output chain, filler)',
      n(r.fill),
      null,
      `fill(orderId, originData, 0x); Ferry's fill(order, escrow) ${fmt(n(base.fill))}`,
    ),
    gasRow(
      '12m',
      'gas: ERC-7683 fill with LayerZero options (fill and prove)',
      n(r.fillAndProve),
      null,
      `fill(orderId, originData, options); fillAndProve ${fmt(n(base.fillAndProve))}; its proof delivered and the opened order settled (lzReceive ${fmt(n(r.lzReceive))})`,
    ),
  ];
}
