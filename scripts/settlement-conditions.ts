/**
 * Times one swap from `POST /swaps` to `completed` under the conditions of a real network, on two devnets
 * producing a block every 2 s, and prints a table:
 *
 *   npx tsx scripts/settlement-conditions.ts
 *
 *   - 2 s blocks: nothing else;
 *   - fee spike: the input chain's base fee held at 500 gwei for 40 s right after the swap;
 *   - wiped mempools: both chains' mempools dropped every 700 ms for 15 s after the swap;
 *   - reorg: Ferry's deposit is removed from the input chain as soon as it is in a block.
 *
 * The registry uses `confirmations: 2` (so a deposit one block deep can be reorged out before it counts) and
 * `replaceAfterSeconds: 6` (three blocks). The liquidity provider fills as soon as the order is `deposited`,
 * re-sending its own transactions until mined. Each condition runs on the same Ferry instance, one at a time.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  http,
  keccak256,
  type PublicClient,
  parseGwei,
  TransactionReceiptNotFoundError,
} from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { createApp } from '../src/app.ts';
import { type Chain, createChainRegistry, type RegistryFile } from '../src/chains/chain-registry.ts';
import { loadArtifact } from '../src/chains/contract-artifacts.ts';
import { ANVIL_KEYS, DEVNET_ATTESTER_KEY, startDevnets } from '../src/chains/devnet.ts';
import { devnetRegistryFile } from '../src/chains/devnet-registry.ts';
import { loadConfig } from '../src/config/config.ts';

const BLOCK_SECONDS = 2;
const SPIKE_SECONDS = 40;
const WIPE_SECONDS = 15;
const SWAP_TIMEOUT_MS = 180_000;

const offerer = privateKeyToAccount(ANVIL_KEYS[2]);
const recipient = privateKeyToAccount(ANVIL_KEYS[3]);
const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
const fillAbi = loadArtifact('FerryFill').abi;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hex = (n: bigint | number) => `0x${BigInt(n).toString(16)}`;

function rpcOf(client: PublicClient) {
  return (method: string, params: unknown[] = []) =>
    client.request({ method: method as never, params: params as never });
}

/** Repeats `work` every `everyMs` until the returned stop function is called or `seconds` have passed. */
function repeat(work: () => Promise<unknown>, everyMs: number, seconds: number) {
  let stopped = false;
  const until = Date.now() + seconds * 1000;
  const loop = (async () => {
    while (!stopped && Date.now() < until) {
      await work().catch(() => {});
      await sleep(everyMs);
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}

async function receiptOf(client: PublicClient, hash: Hex) {
  try {
    return await client.getTransactionReceipt({ hash });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) return null;
    throw error;
  }
}

/** Signs once and re-sends the same bytes until they are in a block (a wiped mempool loses them). */
async function sendUntilMined(client: PublicClient, account: PrivateKeyAccount, to: Hex, data: Hex) {
  const [nonce, fees, chainId, gas] = await Promise.all([
    client.getTransactionCount({ address: account.address, blockTag: 'latest' }),
    client.estimateFeesPerGas(),
    client.getChainId(),
    client.estimateGas({ account: account.address, to, data }),
  ]);
  const raw = await account.signTransaction({
    chainId,
    type: 'eip1559',
    to,
    data,
    nonce,
    gas: gas * 2n,
    maxFeePerGas: fees.maxFeePerGas * 3n,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  });
  const hash = keccak256(raw);
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(300)) {
    await client.sendRawTransaction({ serializedTransaction: raw }).catch(() => null);
    const receipt = await receiptOf(client, hash);
    if (receipt) return receipt;
  }
  throw new Error(`transaction ${hash} was never mined`);
}

async function main() {
  const notes: string[] = [];
  let wipes = 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-conditions-'));
  const devnets = await startDevnets({ dataDir: path.join(dir, 'devnets'), ports: [0, 0] });
  const file: RegistryFile = {
    chains: devnetRegistryFile(devnets).chains.map((c) => ({
      ...c,
      confirmations: 2,
      replaceAfterSeconds: 6,
    })),
  };
  const registry = createChainRegistry(file);
  const [chainA, chainB] = registry.chains as [Chain, Chain];
  const clientOf = (chain: Chain) =>
    createPublicClient({ transport: http(chain.rpcUrl), pollingInterval: 250 }) as PublicClient;
  const a = clientOf(chainA);
  const b = clientOf(chainB);
  for (const client of [a, b]) {
    await rpcOf(client)('evm_setAutomine', [false]);
    await rpcOf(client)('evm_setIntervalMining', [BLOCK_SECONDS]);
  }

  const config = loadConfig({
    PORT: '0',
    DATA_DIR: dir,
    DATABASE_URL: `sqlite:${path.join(dir, 'ferry.sqlite')}`,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    CHAIN_REGISTRY: '',
    WORKER: 'true',
    WORKER_POLL_MS: '200',
    // The script polls order status several times a second for minutes.
    RATE_LIMIT_API_KEY: '100000',
    RATE_LIMIT_IP: '100000',
  });
  const app = await createApp({
    config,
    registry,
    workerKeys: { relayer: DEVNET_ATTESTER_KEY, attester: DEVNET_ATTESTER_KEY },
  });
  const baseUrl = await app.listen();
  const mm = await app.accounts.createAccount({ type: 'moneyMover', name: 'mm', address: null });
  const lp = await app.accounts.createAccount({
    type: 'liquidityProvider',
    name: 'lp',
    address: lpWallet.address,
  });
  const mmKey = (await app.accounts.createApiKey(mm.id)).apiKey;
  const lpKey = (await app.accounts.createApiKey(lp.id)).apiKey;
  const usdcOf = (chain: Chain) => {
    const token = chain.tokens.find((t) => t.symbol === 'USDC');
    if (!token) throw new Error(`no USDC on ${chain.name}`);
    return token.address;
  };
  const usdcA = usdcOf(chainA);
  const usdcB = usdcOf(chainB);

  async function api(method: string, urlPath: string, apiKey: string, body?: unknown) {
    const response = await fetch(`${baseUrl}${urlPath}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    // biome-ignore lint/suspicious/noExplicitAny: API responses are read loosely in this script
    const json = (await response.json()) as { data: any };
    if (response.status >= 300)
      throw new Error(`${method} ${urlPath}: ${response.status} ${JSON.stringify(json)}`);
    return json.data;
  }

  async function waitFor(orderId: string, status: string, until: number) {
    while (Date.now() < until) {
      const order = await api('GET', `/api/v1/orders/${orderId}`, mmKey);
      if (order.status === status) return order;
      if (['failed', 'refunded'].includes(order.status)) throw new Error(`order ended ${order.status}`);
      await sleep(200);
    }
    throw new Error(`order ${orderId} did not reach ${status}`);
  }

  async function depositTxs(orderId: string) {
    return app.database.db
      .selectFrom('chain_action_txs')
      .innerJoin('chain_actions', 'chain_actions.id', 'chain_action_txs.action_id')
      .select('chain_action_txs.tx_hash')
      .where('chain_actions.order_id', '=', orderId)
      .where('chain_actions.kind', '=', 'deposit')
      .execute();
  }

  /** Removes Ferry's deposit from the input chain as soon as it is in a block (once). */
  function reorgDeposit(orderId: string) {
    let done = false;
    return repeat(
      async () => {
        if (done) return;
        for (const tx of await depositTxs(orderId)) {
          const receipt = await receiptOf(a, tx.tx_hash as Hex);
          if (!receipt) continue;
          const latest = await a.getBlockNumber({ cacheTime: 0 });
          const depth = Number(latest - receipt.blockNumber + 1n);
          await rpcOf(a)('anvil_reorg', [depth, []]);
          notes.push(`deposit reorged out (depth ${depth})`);
          done = true;
        }
      },
      100,
      60,
    );
  }

  async function timeOneSwap(condition: (orderId: string) => () => Promise<void>) {
    const input = 1_000_000n;
    const output = 990_000n;
    const wallet = createWalletClient({ account: offerer, transport: http(chainA.rpcUrl) });
    const approval = await wallet.writeContract({
      chain: null,
      address: usdcA,
      abi: erc20Abi,
      functionName: 'approve',
      args: [chainA.contracts.escrow, input],
    });
    await a.waitForTransactionReceipt({ hash: approval });
    const request = await api('POST', '/api/v1/quote-requests', mmKey, {
      recipient: recipient.address,
      offerer: offerer.address,
      inputToken: usdcA,
      outputToken: usdcB,
      inputAmount: input.toString(),
      inputChain: chainA.name,
      outputChain: chainB.name,
    });
    const quote = await api('POST', '/api/v1/quotes', lpKey, {
      quoteRequestId: request.quoteId,
      outputAmount: output.toString(),
    });
    await api('POST', `/api/v1/quotes/${quote.quoteId}/accept`, mmKey);
    const signature = await offerer.signTypedData(quote.typedData);
    const started = Date.now();
    const swap = await api('POST', '/api/v1/swaps', mmKey, {
      orderId: quote.orderId,
      quoteId: quote.quoteId,
      signature,
    });
    const stop = condition(quote.orderId);
    try {
      const until = started + SWAP_TIMEOUT_MS;
      await waitFor(quote.orderId, 'deposited', until);
      await sendUntilMined(
        b,
        lpWallet,
        usdcB,
        encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [chainB.contracts.fill, output] }),
      );
      await sendUntilMined(
        b,
        lpWallet,
        chainB.contracts.fill,
        encodeFunctionData({
          abi: fillAbi,
          functionName: 'fill',
          args: [
            swap.blockchainOrderId,
            usdcB,
            output,
            recipient.address,
            BigInt(quote.typedData.message.fillDeadline),
          ],
        }),
      );
      await waitFor(quote.orderId, 'completed', until);
      return { seconds: (Date.now() - started) / 1000, depositTxs: (await depositTxs(quote.orderId)).length };
    } finally {
      await stop();
      await rpcOf(a)('anvil_setNextBlockBaseFeePerGas', [hex(parseGwei('1'))]);
    }
  }

  const conditions: [string, (orderId: string) => () => Promise<void>][] = [
    ['2 s blocks', () => async () => {}],
    [
      `fee spike (500 gwei, ${SPIKE_SECONDS} s)`,
      () =>
        repeat(
          () => rpcOf(a)('anvil_setNextBlockBaseFeePerGas', [hex(parseGwei('500'))]),
          200,
          SPIKE_SECONDS,
        ),
    ],
    [
      `wiped mempools (700 ms, ${WIPE_SECONDS} s)`,
      () => {
        const stops = [a, b].map((c) =>
          repeat(
            async () => {
              await rpcOf(c)('anvil_dropAllTransactions');
              wipes++;
            },
            700,
            WIPE_SECONDS,
          ),
        );
        return async () => {
          await Promise.all(stops.map((stop) => stop()));
        };
      },
    ],
    ['reorg of the deposit', (orderId) => reorgDeposit(orderId)],
  ];

  const rows: string[] = [];
  const note = () => {
    const text = [...notes, ...(wipes ? [`${wipes} mempool wipes`] : [])].join('; ');
    notes.length = 0;
    wipes = 0;
    return text;
  };
  try {
    for (const [name, condition] of conditions) {
      try {
        const result = await timeOneSwap(condition);
        rows.push(`| ${name} | ${result.seconds.toFixed(1)} s | ${result.depositTxs} | ${note()} |`);
      } catch (error) {
        rows.push(`| ${name} | did not complete: ${(error as Error).message} | | ${note()} |`);
      }
      console.error(rows.at(-1));
    }
  } finally {
    await app.close();
    await devnets.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `\nOne swap, POST /swaps → completed; ${BLOCK_SECONDS} s blocks, confirmations 2, replaceAfterSeconds 6\n`,
  );
  console.log('| condition | time to completed | deposit transactions signed | what happened |');
  console.log('|---|---|---|---|');
  for (const row of rows) console.log(row);
}

await main();
