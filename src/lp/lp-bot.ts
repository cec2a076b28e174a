import type { Hex } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { type ChainRegistry, DEFAULT_MAX_FEE_PER_GAS_GWEI } from '../chains/chain-registry.ts';
import { MAX_PROOFS_PER_MESSAGE } from '../chains/settlement/prove-options.ts';
import {
  createTransactionClient,
  type TransactionClient,
} from '../chains/transactions/transaction-client.ts';
import { isRetryable } from '../domain/ferry-error.ts';
import type { TxCrashPoint } from '../process/fault-injector.ts';
import type { LpJournal } from '../store/ledgers/lp-journal.ts';
import { type ChainInfo, type FerryApi, FerryApiError, type OrderView } from './ferry-api.ts';
import { DEFAULT_FILL_MARGIN_SECONDS } from './fill-margin.ts';
import type { BotLog } from './lp-bot-log.ts';
import { createLpChainAccess } from './lp-chain-access.ts';
import { LpBotError, optionError } from './lp-error.ts';
import { markFilledQuotes } from './lp-filled-quotes.ts';
import { createFiller, type Done } from './lp-filler.ts';
import { fillOpenOrders } from './lp-open-fills.ts';
import type { PassReport } from './lp-pass-report.ts';
import { createPollLoop, nextPassAt, RECEIPT_WAIT_MS, watchStream } from './lp-poll-loop.ts';
import { createProver, type ProverDeps } from './lp-prover.ts';
import { createQuoter, type Quoter } from './lp-quoter.ts';
import { checkLpSetup } from './lp-setup-check.ts';
import { quoteOutputAmount } from './pricing.ts';
import { DEFAULT_PROVE_AFTER_SECONDS, DEFAULT_PROVE_BATCH } from './prove-batch-defaults.ts';

const hex = (value: string) => value as Hex;

export interface LpBotOptions {
  api: FerryApi;
  privateKey: Hex;
  spreadBps: number;
  log: BotLog;
  /** Seconds: quote requests created within this window are considered (default 600). */
  timeWindowSeconds?: number;
  /** Overrides or supplies the RPC URL of a chain whose registry entry has no public rpcUrl. */
  rpcUrls?: Readonly<Record<string, string>>;
  /** Quote validity in seconds (10-600); Ferry's default when unset. */
  validForSeconds?: number;
  /**
   * While running (start), also listen on the WebSocket `quoteRequests` and `account` channels and run a pass as
   * soon as a request arrives or an order is deposited, instead of waiting for the next poll (default true).
   * Polling stays on as the fallback, so nothing is missed while the socket reconnects.
   */
  stream?: boolean;
  /**
   * Seconds before `fillDeadline` (on the output chain's clock) after which the bot no longer fills (default 60):
   * a fill mined after the deadline reverts, and one mined just before it races the offerer's refund.
   */
  fillMarginSeconds?: number;
  /** What the bot quoted and every transaction it signed (src/store/ledgers/lp-journal.ts): a restart resumes from it. */
  journal: LpJournal;
  /** Depth at which the bot counts its own transactions as mined (default: each chain's `confirmations`). */
  confirmations?: number;
  /** A transaction of the bot's not mined after this long is replaced with higher fees (default 10). */
  replaceAfterSeconds?: number;
  /** Replacements never raise maxFeePerGas above this (default 1000 gwei). */
  maxFeePerGasGwei?: number;
  /**
   * The operator's chains file (`--chains`): the escrow, fill contract and tokens the API names must be these.
   * Without it the API's are still checked against the chains themselves (lp-chain-pins.ts).
   */
  pinnedChains?: ChainRegistry | null;
  /**
   * Share of the wallet's balance of a token one offerer's open quotes and orders may hold (default 0.5), so that one
   * wallet's requests cannot take every quote the bot can give.
   */
  maxOffererShare?: number;
  /**
   * Fills per proof message on LayerZero routes (default DEFAULT_PROVE_BATCH, at most MAX_PROOFS_PER_MESSAGE); 1:
   * each fill proves itself in its own transaction (fillAndProve), as before batching (prove-batch-defaults.ts).
   */
  proveBatch?: number;
  /** Seconds after the oldest unproven fill of a route its batch goes out anyway (default DEFAULT_PROVE_AFTER_SECONDS). */
  proveAfterSeconds?: number;
  /**
   * Also fill orders other providers were quoted for and did not fill in their exclusivity, when profitable at this
   * bot's spread (lp-open-fills.ts; default true).
   */
  fillOpen?: boolean;
  /** Test-only crash points of the transaction client (LP_FAULT_INJECT). */
  faults?: { at(point: TxCrashPoint): void };
}

/**
 * The reference market maker: quotes open requests at a fixed spread and fills its deposited orders on the output
 * chain, only those of quotes it made (its journal), through its own transaction client: every approval and fill is
 * written down before it is broadcast, broadcast again when dropped, replaced when slow, and a restart resumes from
 * the journal. The quotes it has out reserve their output against its balance. One pass at a time.
 */
export interface LpBot {
  /** The fill address. */
  readonly address: Hex;
  checkSetup(): Promise<string | null>;
  /** One pass: drive its transactions, fill deposited orders, then quote new requests. Never throws for one item. */
  runOnce(): Promise<PassReport>;
  /** Polls every `pollMs` until stop() (and runs a pass at once on streamed events); honours Retry-After on a 429. */
  start(pollMs: number): void;
  /** Stops polling and waits for the pass in progress, at most STOP_GRACE_MS. */
  stop(): Promise<void>;
}

/**
 * Every transaction in the journal is driven to its end before anything new is sent: broadcast again after a
 * wiped mempool, replaced when slow, and a nonce gap below them filled.
 */
async function driveTransactions(
  transactions: TransactionClient<Parameters<LpJournal['ledger']['record']>[0]['guard']>,
  chainNames: Iterable<string>,
  account: PrivateKeyAccount,
  log: BotLog,
  report: PassReport,
): Promise<void> {
  for (const name of chainNames) {
    try {
      await transactions.drive({
        chain: name,
        account,
        abandoned: async () => new Set<string>(),
        guard: async () => true,
        onError(action, error) {
          report.errors.push({ subject: action?.id ?? name, message: (error as Error).message });
          log.warn(
            { chain: name, actionId: action?.id, err: (error as Error).message },
            'driving a transaction failed; will retry',
          );
        },
      });
    } catch (error) {
      report.errors.push({ subject: name, message: (error as Error).message });
    }
  }
}

type Failed = (subject: string, error: unknown) => void;

/** Writes a pass's failure down (a 429 sets when the next pass may run); the next poll retries it. */
function recordFailure(report: PassReport, log: BotLog): Failed {
  return (subject, error) => {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof FerryApiError && error.status === 429) {
      report.retryAfterMs = Math.max(report.retryAfterMs ?? 0, (error.retryAfter ?? 5) * 1000);
    }
    report.errors.push({ subject, message });
    log.warn({ subject, err: message, retryable: isRetryable(error) }, 'will retry next poll');
  };
}

/** Fills the deposited orders the bot is not done with, until Ferry asks it to back off. */
async function fillDeposited(
  api: FerryApi,
  settledOrders: ReadonlySet<Hex>,
  fillOne: (order: OrderView) => Promise<void>,
  report: PassReport,
  failed: Failed,
): Promise<void> {
  try {
    for (const order of await api.orders('deposited')) {
      if (report.retryAfterMs !== null) break;
      if (settledOrders.has(hex(order.blockchainOrderId))) continue;
      try {
        await fillOne(order);
      } catch (error) {
        failed(order.orderId, error);
      }
    }
  } catch (error) {
    failed('list orders', error);
  }
}

/** Quotes the open requests of the last `timeWindow` seconds not handled yet, until Ferry asks it to back off. */
async function quoteOpen(
  api: FerryApi,
  quoter: Quoter,
  timeWindow: number,
  report: PassReport,
  failed: Failed,
): Promise<void> {
  try {
    for (const qr of await api.openQuoteRequests(timeWindow)) {
      if (report.retryAfterMs !== null) break;
      if (quoter.handled(qr.id) || qr.status !== 'open') continue;
      try {
        await quoter.quoteOne(qr, report);
      } catch (error) {
        failed(qr.id, error);
      }
    }
  } catch (error) {
    failed('list quote requests', error);
  }
}

/** How the bot's transaction client treats its transactions on chain `name`. */
function txSettings(options: LpBotOptions, name: string, info: ChainInfo | undefined) {
  if (!info) throw new LpBotError(`chain ${name} is not known to the bot`);
  return {
    chainId: info.chainId,
    // The depth Ferry's registry asks of the chain: a fill counted final sooner can be lost to a reorg Ferry waits out.
    confirmations: options.confirmations ?? info.confirmations,
    replaceAfterSeconds: options.replaceAfterSeconds ?? 10,
    maxFeePerGas: BigInt(options.maxFeePerGasGwei ?? DEFAULT_MAX_FEE_PER_GAS_GWEI) * 10n ** 9n,
  };
}

function emptyReport(): PassReport {
  return { quoted: [], filled: [], proved: [], errors: [], retryAfterMs: null, nextPassAt: null };
}

/** The filler and the prover, with the bot's batch settings (prove-batch-defaults.ts). */
function fillerAndProver(options: LpBotOptions, parts: Omit<ProverDeps, 'proveBatch' | 'proveAfterMs'>) {
  const proveBatch = options.proveBatch ?? DEFAULT_PROVE_BATCH;
  if (!Number.isInteger(proveBatch) || proveBatch < 1 || proveBatch > MAX_PROOFS_PER_MESSAGE)
    throw optionError(`proveBatch must be an integer from 1 to ${MAX_PROOFS_PER_MESSAGE}, got ${proveBatch}`);
  const fillMargin = BigInt(options.fillMarginSeconds ?? DEFAULT_FILL_MARGIN_SECONDS);
  const proveAfterMs = (options.proveAfterSeconds ?? DEFAULT_PROVE_AFTER_SECONDS) * 1000;
  return {
    filler: createFiller({ ...parts, fillMargin, proveBatch }),
    prover: createProver({ ...parts, proveBatch, proveAfterMs }),
  };
}

function offererShareOf(options: LpBotOptions): number {
  const share = options.maxOffererShare ?? 0.5;
  if (!(share > 0 && share <= 1))
    throw optionError(`maxOffererShare must be above 0 and at most 1, got ${share}`);
  return share;
}

/** Logs what became of an order; a final word ends it for the bot, a passing one is said once. */
function orderDone(
  order: OrderView,
  seen: { settledOrders: Set<Hex>; watching: Map<Hex, string>; log: BotLog },
): Done {
  const orderHash = hex(order.blockchainOrderId);
  return (msg, level, extra = {}, final = true) => {
    if (final) {
      seen.settledOrders.add(orderHash);
      seen.watching.delete(orderHash);
    } else if (seen.watching.get(orderHash) === msg) return;
    else seen.watching.set(orderHash, msg);
    seen.log[level]({ orderId: order.orderId, orderHash, ...extra }, msg);
  };
}

export function createLpBot(options: LpBotOptions): LpBot {
  const { api, log, spreadBps } = options;
  const account: PrivateKeyAccount = privateKeyToAccount(options.privateKey);
  const timeWindow = options.timeWindowSeconds ?? 600;
  // Validates the spread once, up front.
  quoteOutputAmount(1n, spreadBps, { input: 0, output: 0 });
  const maxOffererShare = offererShareOf(options);
  /** Orders the bot is done with (filled, or not its to fill). */
  const settledOrders = new Set<Hex>();
  const pinned = options.pinnedChains ?? null;
  const access = createLpChainAccess({ api, account, pinned, rpcUrls: options.rpcUrls });
  const { chain, clientsFor } = access;
  let running: Promise<PassReport> | null = null;
  const transactions = createTransactionClient({
    ledger: options.journal.ledger,
    chains: (name) => txSettings(options, name, access.known(name)),
    rpc: (name) => clientsFor(access.known(name) as ChainInfo).public as never,
    log,
    ...(options.faults ? { faults: options.faults } : {}),
    receiptWaitMs: RECEIPT_WAIT_MS,
  });
  const quoter = createQuoter({
    api,
    account,
    journal: options.journal,
    log,
    spreadBps,
    maxOffererShare,
    ...(options.validForSeconds ? { validForSeconds: options.validForSeconds } : {}),
    chain,
    clientsFor,
  });
  const { filler, prover } = fillerAndProver(options, {
    account,
    journal: options.journal,
    transactions,
    log,
    chain,
    clientsFor,
  });
  const overpriced = new Set<string>();
  /** Orders other providers let lapse, filled like its own (lp-open-fills.ts). */
  const fillOpen = (report: PassReport, failed: Failed) => {
    const fillOne = (order: OrderView) =>
      filler.fillOne(order, report, orderDone(order, { settledOrders, watching, log }), true);
    const offererShareMillionths = BigInt(Math.round(maxOffererShare * 1_000_000));
    const deps = {
      api,
      account,
      journal: options.journal,
      spreadBps,
      offererShareMillionths,
      log,
      chain,
      clientsFor,
    };
    return fillOpenOrders({ ...deps, settledOrders, overpriced, fillOne }, failed);
  };
  /** What was last said of each order the bot still watches: a fill waiting for settlement is logged once. */
  const watching = new Map<Hex, string>();
  const fillOne = (order: OrderView, report: PassReport) =>
    filler.fillOne(order, report, orderDone(order, { settledOrders, watching, log }));

  async function pass(): Promise<PassReport> {
    const report = emptyReport();
    const failed = recordFailure(report, log);

    if (access.size() === 0) {
      try {
        await access.refresh();
      } catch (error) {
        failed('list chains', error);
      }
    }
    await driveTransactions(transactions, access.names(), account, log, report);
    // Fills first: an accepted order is money waiting, a quote is only an offer.
    await fillDeposited(api, settledOrders, (order) => fillOne(order, report), report, failed);
    if (options.fillOpen !== false && report.retryAfterMs === null) await fillOpen(report, failed);
    await markFilledQuotes({ journal: options.journal, chain, clientsFor, log }, report, failed);
    // Then proofs: the LP's repayment, which batching delays by at most the window.
    report.nextPassAt = await nextPassAt(options.journal, await prover.provePass(report, failed));

    if (report.retryAfterMs === null) await quoteOpen(api, quoter, timeWindow, report, failed);
    return report;
  }

  const loop = createPollLoop({
    runOnce: () => bot.runOnce(),
    running: () => running,
    openNudger: () => (options.stream === false ? null : watchStream(api, log, () => loop.nudge())),
  });
  const bot: LpBot = {
    address: account.address,
    /**
     * What would otherwise fail on every pass, checked once before the first (lp-setup-check.ts): the first problem
     * as one sentence, or null.
     */
    async checkSetup(): Promise<string | null> {
      const checked = await checkLpSetup({ api, account, pinned, clientsFor });
      if ('problem' in checked) return checked.problem;
      access.set(checked.chains);
      return null;
    },

    /** One pass: fill deposited orders, then quote new requests. Never throws for a per-item error. */
    runOnce(): Promise<PassReport> {
      running ??= pass().finally(() => {
        running = null;
      });
      return running;
    },

    start: (pollMs) => loop.start(pollMs),
    stop: () => loop.stop(),
  };
  return bot;
}
