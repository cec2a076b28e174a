/**
 * Times one swap from `POST /api/v1/swaps` to `completed` under the conditions of a real network, on two devnets
 * producing a block every 2 s, with the reference LP bot (src/lp/lp-bot.ts) as the liquidity provider, and prints a
 * table:
 *
 *   npx tsx scripts/settlement-conditions.ts
 *   LOG_LEVEL=info npx tsx scripts/settlement-conditions.ts   # with Ferry's and the bot's logs
 *
 * It takes about two minutes. The table goes to stdout; progress (each row as it is measured) and the logs (pino
 * JSON lines at LOG_LEVEL, silent by default) go to stderr.
 *
 * Each condition runs on the same Ferry instance and the same bot, one after another; the timer starts at
 * `POST /api/v1/swaps`, and so does each condition:
 *
 *   - 2 s blocks: nothing else;
 *   - wiped mempools: both chains' mempools dropped every 700 ms for 15 s;
 *   - fee spike: the base fee held at 500 gwei on both chains for 40 s, longer than the whole swap takes. Each
 *     transaction is priced at twice the node's estimate, capped at the chain's fee cap (1000 gwei by default), so
 *     one signed after a block at 500 gwei is mined at once; one priced below the spike would be refused by the node
 *     and replaced with higher fees. Its notes give each transaction's maxFeePerGas (first → mined);
 *   - relayer outage: the native balance of Ferry's relayer (the worker's relayer key) on the input chain set to 0
 *     right before the swap and restored to what it was 20 s later;
 *   - reorg of the deposit: Ferry's deposit is removed from the input chain as soon as it is in a block.
 *
 * The registry uses `confirmations: 2` (so a deposit one block deep can be reorged out before it counts) and
 * `replaceAfterSeconds: 6` (three blocks). The bot (anvil key 4, a 25 bps spread, `replaceAfterSeconds: 6`, a
 * journal in the script's temp dir) runs in-process, polling every 500 ms: it quotes each request, and fills the
 * order once it is `deposited` through its own transaction client. The money mover waits for the bot's quote,
 * accepts it, signs and swaps. Per condition the table gives the time to `completed`, the deposit transactions
 * Ferry signed (every attempt of the order's deposit actions), and the fill transactions the bot signed (every
 * attempt of its fill action, from its journal).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import {
  createPublicClient,
  createWalletClient,
  erc20Abi,
  type Hex,
  http,
  type PublicClient,
  parseGwei,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createApp } from '../src/app.ts';
import { type Chain, createChainRegistry, type RegistryFile } from '../src/chains/chain-registry.ts';
import { loadConfig } from '../src/config/config.ts';
import { ANVIL_KEYS, DEVNET_WORKER_KEYS, startDevnets } from '../src/devnet/devnet.ts';
import { devnetRegistryFile } from '../src/devnet/devnet-registry.ts';
import { createFerryApi } from '../src/lp/ferry-api.ts';
import { createLpBot } from '../src/lp/lp-bot.ts';
import { openLpJournal } from '../src/store/ledgers/lp-journal.ts';
import {
  drainBalance,
  feesText,
  hex,
  holdBaseFee,
  reorgOnceMined,
  rpcOf,
  wipeMempools,
} from './devnet-disturbances.ts';

const BLOCK_SECONDS = 2;
const CONFIRMATIONS = 2;
const REPLACE_AFTER_SECONDS = 6;
const SPIKE_SECONDS = 40;
const SPIKE_GWEI = '500';
const WIPE_SECONDS = 15;
const WIPE_EVERY_MS = 700;
const OUTAGE_SECONDS = 20;
const SPREAD_BPS = 25;
const INPUT_AMOUNT = 1_000_000n;
const SWAP_TIMEOUT_MS = 180_000;

/** The worker's keys on the devnets: the relayer signs deposits and settles, the attester attests fills. */
const WORKER_KEYS = DEVNET_WORKER_KEYS;
const relayer = privateKeyToAccount(WORKER_KEYS.relayer);
const offerer = privateKeyToAccount(ANVIL_KEYS[2]);
const recipient = privateKeyToAccount(ANVIL_KEYS[3]);
const lpKey = ANVIL_KEYS[4];
const lpWallet = privateKeyToAccount(lpKey);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Two devnets at BLOCK_SECONDS blocks, Ferry (in-process, worker on) with a money mover and the bot's LP account,
 * and the bot itself, started.
 */
async function startRig(logLevel: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-conditions-'));
  const devnets = await startDevnets({ dataDir: path.join(dir, 'devnets'), ports: [0, 0] });
  const file: RegistryFile = {
    chains: devnetRegistryFile(devnets).chains.map((c) => ({
      ...c,
      confirmations: CONFIRMATIONS,
      replaceAfterSeconds: REPLACE_AFTER_SECONDS,
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
    LOG_LEVEL: logLevel,
    CHAIN_REGISTRY: '',
    WORKER: 'true',
    WORKER_POLL_MS: '200',
    // The script and the bot poll several times a second for minutes.
    RATE_LIMIT_API_KEY: '100000',
    RATE_LIMIT_IP: '100000',
  });
  // Ferry's logs and the bot's on stderr (stdout is the table), at LOG_LEVEL: silent unless asked for.
  const log = pino({ level: logLevel }, process.stderr);
  const app = await createApp({ config, registry, log, workerKeys: WORKER_KEYS });
  const baseUrl = await app.listen();
  const mm = await app.accounts.createAccount({ type: 'moneyMover', name: 'mm', address: null });
  const lp = await app.accounts.createAccount({
    type: 'liquidityProvider',
    name: 'lp-bot',
    address: lpWallet.address,
  });
  const mmKey = (await app.accounts.createApiKey(mm.id)).apiKey;
  const lpApiKey = (await app.accounts.createApiKey(lp.id)).apiKey;
  const usdcOf = (chain: Chain) => {
    const token = chain.tokens.find((t) => t.symbol === 'USDC');
    if (!token) throw new Error(`no USDC on ${chain.name}`);
    return token.address;
  };
  const usdcA = usdcOf(chainA);
  const usdcB = usdcOf(chainB);

  const journal = openLpJournal(path.join(dir, 'lp-journal.sqlite'));
  const bot = createLpBot({
    api: createFerryApi({ baseUrl, apiKey: lpApiKey }),
    privateKey: lpKey,
    spreadBps: SPREAD_BPS,
    log: log.child({ component: 'lp-bot' }),
    journal,
    replaceAfterSeconds: REPLACE_AFTER_SECONDS,
  });
  const setupProblem = await bot.checkSetup();
  if (setupProblem) {
    await journal.close();
    await app.close();
    await devnets.stop();
    throw new Error(`the LP bot cannot run: ${setupProblem}`);
  }
  bot.start(500);

  return { dir, devnets, chainA, chainB, a, b, app, baseUrl, mmKey, lp, usdcA, usdcB, journal, bot };
}
type Rig = Awaited<ReturnType<typeof startRig>>;

async function api(rig: Rig, method: string, urlPath: string, apiKey: string, body?: unknown) {
  const response = await fetch(`${rig.baseUrl}${urlPath}`, {
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

async function waitFor(rig: Rig, orderId: string, status: string, until: number) {
  while (Date.now() < until) {
    const order = await api(rig, 'GET', `/api/v1/orders/${orderId}`, rig.mmKey);
    if (order.status === status) return order;
    if (['failed', 'refunded'].includes(order.status))
      throw new Error(`order ended ${order.status}${order.failureReason ? ` (${order.failureReason})` : ''}`);
    await sleep(200);
  }
  const order = await api(rig, 'GET', `/api/v1/orders/${orderId}`, rig.mmKey);
  throw new Error(`order ${orderId} did not reach ${status} (still ${order.status})`);
}

/** The bot's active quote on the request (it polls every 500 ms and streams new requests). */
async function botQuote(rig: Rig, quoteRequestId: string) {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(200)) {
    const data = await api(
      rig,
      'GET',
      `/api/v1/quotes?quoteRequestId=${quoteRequestId}&status=active`,
      rig.mmKey,
    );
    const quote = (data.quotes as { id: string; liquidityProviderId: string }[]).find(
      (q) => q.liquidityProviderId === rig.lp.id,
    );
    if (quote) return quote;
  }
  throw new Error(`the bot did not quote request ${quoteRequestId}`);
}

async function depositTxs(rig: Rig, orderId: string) {
  return rig.app.database.db
    .selectFrom('chain_action_txs')
    .innerJoin('chain_actions', 'chain_actions.id', 'chain_action_txs.action_id')
    .select('chain_action_txs.tx_hash')
    .where('chain_actions.order_id', '=', orderId)
    .where('chain_actions.kind', '=', 'deposit')
    .execute();
}

/** Every fill transaction the bot signed for the order: the attempts of its latest fill action. */
async function fillTxs(rig: Rig, orderHash: Hex) {
  const action = await rig.journal.latestAction(orderHash, 'fill');
  return action ? (await rig.journal.ledger.attempts(action.id)).length : 0;
}

/**
 * The fees each transaction of the order was signed at: the first attempt's maxFeePerGas and, when it was
 * replaced, the mined one's (Ferry's deposit and settle from its database, the bot's fill from its journal).
 */
async function feesOf(rig: Rig, orderId: string) {
  const ferryAttempts = async (kind: string) =>
    (
      await rig.app.database.db
        .selectFrom('chain_action_txs')
        .innerJoin('chain_actions', 'chain_actions.id', 'chain_action_txs.action_id')
        .select('chain_action_txs.max_fee_per_gas')
        .where('chain_actions.order_id', '=', orderId)
        .where('chain_actions.kind', '=', kind)
        .orderBy('chain_actions.seq')
        .orderBy('chain_action_txs.attempt')
        .execute()
    ).map((tx) => ({ maxFeePerGas: BigInt(tx.max_fee_per_gas) }));
  const order = await api(rig, 'GET', `/api/v1/orders/${orderId}`, rig.mmKey);
  const fill = await rig.journal.latestAction(order.blockchainOrderId, 'fill');
  const fillAttempts = fill ? await rig.journal.ledger.attempts(fill.id) : [];
  return `signed at: deposit ${feesText(await ferryAttempts('deposit'))}, settle ${feesText(await ferryAttempts('settle'))}, fill ${feesText(fillAttempts)}`;
}

/** Started right before `POST /api/v1/swaps` (the order id is known by then); returns its stop function. */
type Condition = (orderId: string) => Promise<() => Promise<void>>;

async function timeOneSwap(rig: Rig, condition: Condition) {
  const { chainA, chainB, a, b, mmKey, usdcA, usdcB } = rig;
  const wallet = createWalletClient({ account: offerer, transport: http(chainA.rpcUrl) });
  const approval = await wallet.writeContract({
    chain: null,
    address: usdcA,
    abi: erc20Abi,
    functionName: 'approve',
    args: [chainA.contracts.escrow, INPUT_AMOUNT],
  });
  await a.waitForTransactionReceipt({ hash: approval });
  const request = await api(rig, 'POST', '/api/v1/quote-requests', mmKey, {
    recipient: recipient.address,
    offerer: offerer.address,
    inputToken: usdcA,
    outputToken: usdcB,
    inputAmount: INPUT_AMOUNT.toString(),
    inputChain: chainA.name,
    outputChain: chainB.name,
  });
  const quote = await botQuote(rig, request.quoteId);
  const envelope = await api(rig, 'GET', `/api/v1/quotes/${quote.id}`, mmKey);
  await api(rig, 'POST', `/api/v1/quotes/${quote.id}/accept`, mmKey);
  const signature = await offerer.signTypedData(envelope.typedData);
  const stop = await condition(envelope.orderId);
  try {
    const started = Date.now();
    const swap = await api(rig, 'POST', '/api/v1/swaps', mmKey, {
      orderId: envelope.orderId,
      quoteId: quote.id,
      signature,
    });
    await waitFor(rig, envelope.orderId, 'completed', started + SWAP_TIMEOUT_MS);
    const seconds = (Date.now() - started) / 1000;
    return {
      seconds,
      depositTxs: (await depositTxs(rig, envelope.orderId)).length,
      fillTxs: await fillTxs(rig, swap.blockchainOrderId as Hex),
    };
  } finally {
    await stop();
    for (const client of [a, b])
      await rpcOf(client)('anvil_setNextBlockBaseFeePerGas', [hex(parseGwei('1'))]);
  }
}

/** The conditions, in order; `note` records what happened, `onWipe` counts mempool wipes. */
function conditionsOf(rig: Rig, note: (text: string) => void, onWipe: () => void): [string, Condition][] {
  const { a, b } = rig;
  return [
    ['2 s blocks', async () => async () => {}],
    [
      `wiped mempools (${WIPE_EVERY_MS} ms, ${WIPE_SECONDS} s)`,
      async () => wipeMempools([a, b], WIPE_EVERY_MS, WIPE_SECONDS, onWipe),
    ],
    [
      `fee spike (${SPIKE_GWEI} gwei, ${SPIKE_SECONDS} s)`,
      async (orderId) => {
        const stop = holdBaseFee([a, b], SPIKE_GWEI, SPIKE_SECONDS);
        return async () => {
          await stop();
          note(await feesOf(rig, orderId).catch((error) => `fees unknown: ${(error as Error).message}`));
        };
      },
    ],
    [
      `relayer outage (${OUTAGE_SECONDS} s)`,
      async () => drainBalance(a, relayer.address, 'relayer', OUTAGE_SECONDS, note),
    ],
    [
      'reorg of the deposit',
      async (orderId) =>
        reorgOnceMined(
          a,
          'deposit',
          async () => (await depositTxs(rig, orderId)).map((tx) => tx.tx_hash as Hex),
          note,
        ),
    ],
  ];
}

async function main() {
  const logLevel = process.env.LOG_LEVEL ?? 'silent';
  const notes: string[] = [];
  let wipes = 0;
  const rig = await startRig(logLevel);
  const conditions = conditionsOf(
    rig,
    (text) => notes.push(text),
    () => wipes++,
  );
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
        const result = await timeOneSwap(rig, condition);
        rows.push(
          `| ${name} | ${result.seconds.toFixed(1)} s | ${result.depositTxs} | ${result.fillTxs} | ${note()} |`,
        );
      } catch (error) {
        rows.push(`| ${name} | did not complete: ${(error as Error).message} | | | ${note()} |`);
      }
      console.error(rows.at(-1));
    }
  } finally {
    await rig.bot.stop();
    await rig.journal.close();
    await rig.app.close();
    await rig.devnets.stop();
    fs.rmSync(rig.dir, { recursive: true, force: true });
  }
  console.log(
    `\nOne swap, POST /swaps → completed; ${BLOCK_SECONDS} s blocks, confirmations ${CONFIRMATIONS}, replaceAfterSeconds ${REPLACE_AFTER_SECONDS}; the reference LP bot (${SPREAD_BPS} bps, replaceAfterSeconds ${REPLACE_AFTER_SECONDS})\n`,
  );
  console.log(
    '| condition | time to completed | deposit transactions Ferry signed | fill transactions the bot signed | what happened |',
  );
  console.log('|---|---|---|---|---|');
  for (const row of rows) console.log(row);
}

await main();
