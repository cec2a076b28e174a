// A whole swap as an integrator writes it in a plain .mjs file, with only `@ferry/client` and `viem` installed.
// Run by test/sdk-package.test.ts from an empty project; prints the final order as JSON.
import { createFerryClient, signQuote } from '@ferry/client';
import { createPublicClient, createWalletClient, erc20Abi, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

const { FERRY_URL, FERRY_API_KEY, OFFERER_KEY, RECIPIENT, RPC_URL } = process.env;
const ferry = createFerryClient({ baseUrl: FERRY_URL, apiKey: FERRY_API_KEY });
const offerer = privateKeyToAccount(OFFERER_KEY);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const { chains } = (await ferry.public.chains()).data;
const [input, output] = chains;
const usdc = (chain) => chain.tokens.find((t) => t.symbol === 'USDC').address;
const amount = 1_500_000n;

// 1. Let the escrow pull the input (once per token; here exactly the amount).
const chain = {
  id: input.chainId,
  name: input.name,
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [RPC_URL] } },
};
const wallet = createWalletClient({ account: offerer, chain, transport: http(RPC_URL) });
const reader = createPublicClient({ chain, transport: http(RPC_URL) });
const approval = await wallet.writeContract({
  address: usdc(input),
  abi: erc20Abi,
  functionName: 'approve',
  args: [input.contracts.escrow, amount],
});
await reader.waitForTransactionReceipt({ hash: approval });

// 2. Ask for quotes, 3. accept the best, 4. sign the order and swap.
const request = await ferry.quoteRequests.create({
  offerer: offerer.address,
  recipient: RECIPIENT,
  inputChain: input.name,
  outputChain: output.name,
  inputToken: usdc(input),
  outputToken: usdc(output),
  inputAmount: amount.toString(),
});
let quotes = [];
for (let i = 0; i < 300 && quotes.length === 0; i++) {
  quotes = (await ferry.quotes.list({ quoteRequestId: request.quoteRequestId, status: 'active' })).quotes;
  if (quotes.length === 0) await sleep(100);
}
if (quotes.length === 0) throw new Error('no quote arrived');
const best = quotes.reduce((a, b) => (BigInt(b.outputAmount) > BigInt(a.outputAmount) ? b : a));
await ferry.quotes.accept(best.id);
const accepted = await ferry.quotes.get(best.id);
const signature = await signQuote(offerer, accepted.typedData);
const swap = await ferry.swaps.execute({ orderId: accepted.orderId, quoteId: best.id, signature });

// 5. Follow the order until it settles.
let order = swap.order;
for (let i = 0; i < 600 && !['completed', 'failed', 'refunded'].includes(order.status); i++) {
  await sleep(100);
  order = await ferry.orders.get(swap.orderId);
}
console.log(JSON.stringify({ orderId: swap.orderId, status: order.status, outputAmount: best.outputAmount }));
