import { formatUnits, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { type FerryClient, type Order, signQuote } from '../../sdk/src/index.ts';
import { balanceOf, chainClients, ensureAllowance } from '../chains/settlement/lp-chain-clients.ts';
import { ANVIL_KEYS } from '../devnet/devnet.ts';
import { quoteOutputAmount } from '../lp/pricing.ts';
import { DemoError, type DemoRun, ok, waitFor } from './demo-run.ts';
import { type DemoChains, lpWallet } from './demo-setup.ts';

const offerer = privateKeyToAccount(ANVIL_KEYS[2]);
const recipient = privateKeyToAccount(ANVIL_KEYS[3]);

export interface DemoResult {
  orderId: string;
  depositTx: Hex;
  fillTx: Hex;
  settleTx: Hex;
}

/** The USDC balances the swap moves: the offerer's, the recipient's and the LP's on both chains. */
interface Balances {
  offerer: bigint;
  recipient: bigint;
  lpA: bigint;
  lpB: bigint;
}

/** The swap's amounts and how the demo prints them. */
interface SwapTerms {
  readonly input: bigint;
  readonly expectedOutput: bigint;
  readonly fmt: (v: bigint) => string;
}

/**
 * The money mover's side of one swap through the typed client SDK (approve, request, accept, sign, swap), then
 * the settlement followed to the end and the balances checked. Throws DemoError naming what went wrong.
 */
export async function runDemoSwap(run: DemoRun, chains: DemoChains, mm: FerryClient): Promise<DemoResult> {
  const { chainA, chainB, usdcA, usdcB } = chains;
  const a = chainClients(chainA, offerer);
  const b = chainClients(chainB, offerer);
  const snapshot = async (): Promise<Balances> => ({
    offerer: await balanceOf(a, usdcA.address, offerer.address),
    recipient: await balanceOf(b, usdcB.address, recipient.address),
    lpA: await balanceOf(a, usdcA.address, lpWallet.address),
    lpB: await balanceOf(b, usdcB.address, lpWallet.address),
  });
  const before = await snapshot();
  const input = run.options.inputAmount;
  const terms: SwapTerms = {
    input,
    expectedOutput: quoteOutputAmount(input, run.options.spreadBps, {
      input: usdcA.decimals,
      output: usdcB.decimals,
    }),
    fmt: (v: bigint) => formatUnits(v, usdcA.decimals),
  };

  run.step = 'approve';
  const approveTx = await ensureAllowance(a, usdcA.address, chainA.escrow, input);
  ok(
    run,
    'approve',
    `offerer ${offerer.address} lets the escrow on ${chainA.name} pull ${terms.fmt(input)} USDC` +
      (approveTx ? ` (tx ${approveTx})` : ' (allowance already set)'),
  );
  const orderId = await placeOrder(run, chains, mm, terms);
  const completed = await followSettlement(run, chains, mm, orderId, terms);
  const { srcChainTxHash, dstChainTxHash, settlementTxHash } = completed.details;
  if (!srcChainTxHash || !dstChainTxHash || !settlementTxHash) {
    throw new DemoError('the completed order lacks a transaction hash');
  }

  run.step = 'balances';
  printBalances(run, chains, before, await snapshot(), terms);
  return {
    orderId,
    depositTx: srcChainTxHash as Hex,
    fillTx: dstChainTxHash as Hex,
    settleTx: settlementTxHash as Hex,
  };
}

/** Quote request, the LP bot's quote, accept, sign, swap: resolves to the new order's id. */
async function placeOrder(
  run: DemoRun,
  chains: DemoChains,
  mm: FerryClient,
  terms: SwapTerms,
): Promise<string> {
  const { chainA, chainB, usdcA, usdcB } = chains;
  const { input, expectedOutput, fmt } = terms;
  run.step = 'quote request';
  const { quoteId: quoteRequestId } = await mm.quoteRequests.create({
    offerer: offerer.address,
    recipient: recipient.address,
    inputToken: usdcA.address,
    outputToken: usdcB.address,
    inputAmount: input.toString(),
    inputChain: chainA.name,
    outputChain: chainB.name,
  });
  ok(
    run,
    'quote request',
    `${quoteRequestId}: ${fmt(input)} USDC on ${chainA.name} -> USDC on ${chainB.name}`,
  );

  run.step = 'LP quote';
  const quote = await waitFor(
    run,
    async () => (await mm.quotes.list({ quoteRequestId, status: 'active' })).quotes[0] ?? null,
  );
  ok(
    run,
    'LP quote',
    `${quote.id}: ${fmt(BigInt(quote.outputAmount))} USDC (spread ${run.options.spreadBps} bps)`,
  );
  if (BigInt(quote.outputAmount) !== expectedOutput) {
    throw new DemoError(`the LP quoted ${quote.outputAmount}, expected ${expectedOutput}`);
  }

  run.step = 'accept';
  const accepted = await mm.quotes.accept(quote.id);
  ok(run, 'accept', `${quote.id} accepted (${accepted.declinedCount} other quotes declined)`);

  run.step = 'sign';
  const signature = await signQuote(offerer, quote.typedData);
  ok(run, 'sign', `offerer signed the EIP-712 order ${quote.signingHash}`);

  run.step = 'swap';
  const swap = await mm.swaps.execute({ orderId: quote.orderId, quoteId: quote.id, signature });
  ok(run, 'swap', `order ${swap.orderId} created (blockchainOrderId ${swap.blockchainOrderId})`);
  return swap.orderId;
}

/** Waits for the deposit, the fill and the settlement, printing each; resolves to the completed order. */
async function followSettlement(
  run: DemoRun,
  chains: DemoChains,
  mm: FerryClient,
  orderId: string,
  { input, expectedOutput, fmt }: SwapTerms,
): Promise<Order> {
  const { chainA, chainB } = chains;
  const reach = (statuses: string[]) =>
    waitFor<Order>(run, async () => {
      const order = await mm.orders.get(orderId);
      if (order.status === 'failed' || order.status === 'refunded') {
        throw new DemoError(`order ${order.status}: ${order.failureReason ?? 'no reason given'}`);
      }
      return statuses.includes(order.status) ? order : null;
    });
  run.step = 'deposit';
  const deposited = await reach(['deposited', 'filled', 'completed']);
  ok(
    run,
    'deposit',
    `${fmt(input)} USDC locked in the escrow on ${chainA.name} (tx ${deposited.details.srcChainTxHash})`,
  );
  run.step = 'fill';
  const filled = await reach(['filled', 'completed']);
  ok(
    run,
    'fill',
    `LP paid ${fmt(expectedOutput)} USDC to the recipient on ${chainB.name} (tx ${filled.details.dstChainTxHash})`,
  );
  run.step = 'settle';
  const completed = await reach(['completed']);
  ok(
    run,
    'settle',
    `escrow released ${fmt(input)} USDC to the LP on ${chainA.name} (tx ${completed.details.settlementTxHash})`,
  );
  return completed;
}

/** The balance table, then a check that the balances moved by exactly the swap's amounts. */
function printBalances(
  run: DemoRun,
  chains: DemoChains,
  before: Balances,
  after: Balances,
  terms: SwapTerms,
) {
  const { print } = run.options;
  const { input, expectedOutput, fmt } = terms;
  const rows: [string, string, bigint, bigint][] = [
    [`offerer   ${offerer.address}`, chains.chainA.name, before.offerer, after.offerer],
    [`recipient ${recipient.address}`, chains.chainB.name, before.recipient, after.recipient],
    [`LP        ${lpWallet.address}`, chains.chainA.name, before.lpA, after.lpA],
    [`LP        ${lpWallet.address}`, chains.chainB.name, before.lpB, after.lpB],
  ];
  const col = (s: string, n: number) => s.padStart(n);
  print('');
  print(
    `  ${'USDC balances'.padEnd(52)} ${'chain'.padEnd(9)} ${col('before', 16)} ${col('after', 16)} ${col('change', 12)}`,
  );
  for (const [who, chainName, x, y] of rows) {
    const delta = y - x;
    const sign = delta > 0n ? '+' : '';
    print(
      `  ${who.padEnd(52)} ${chainName.padEnd(9)} ${col(fmt(x), 16)} ${col(fmt(y), 16)} ${col(sign + fmt(delta), 12)}`,
    );
  }
  const lpNet = after.lpA - before.lpA + (after.lpB - before.lpB);
  if (
    after.offerer - before.offerer !== -input ||
    after.recipient - before.recipient !== expectedOutput ||
    lpNet !== input - expectedOutput
  ) {
    throw new DemoError('the balances do not add up to the swap');
  }
  print('');
  print(
    `Swap completed in ${((Date.now() - run.started) / 1000).toFixed(1)} s: the offerer paid ${fmt(input)} USDC, ` +
      `the recipient got ${fmt(expectedOutput)} USDC, the LP earned ${fmt(lpNet)} USDC.`,
  );
}
