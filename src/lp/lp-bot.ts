import { getAddress, type Hex } from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import {
  balanceOf,
  type ChainClients,
  chainClients,
  chainTime,
  escrowStatus,
  hasFilled,
  receiptStatus,
  sendFill,
} from '../chains/lp-chain-clients.ts';
import {
  type ChainInfo,
  type FerryApi,
  FerryApiError,
  type OrderView,
  type QuoteRequestView,
} from './ferry-api.ts';
import { DEFAULT_FILL_MARGIN_SECONDS } from './fill-margin.ts';

const hex = (value: string) => value as Hex;

import { quoteOutputAmount } from './pricing.ts';

/** The pino-compatible subset the bot logs through. */
export interface BotLog {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

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
}

export interface PassReport {
  quoted: { quoteRequestId: string; quoteId: string; outputAmount: string }[];
  filled: { orderId: string; orderHash: Hex; txHash: Hex }[];
  errors: { subject: string; message: string }[];
  /** Set when Ferry answered 429: wait at least this long before the next pass. */
  retryAfterMs: number | null;
}

/** Permanent refusals of a quote: asking again cannot succeed (409s mean "already quoted" or "closed"). */
const FINAL_QUOTE_STATUSES = new Set([400, 403, 404, 409, 410, 422]);

/**
 * The reference market maker: quotes open requests at a fixed spread and fills its deposited orders on the
 * output chain. State (what it quoted, what it sent) is in memory; the fill contract's `filled(orderHash, filler)` and Ferry's 409s
 * make a restarted bot safe too. One pass at a time.
 */
export function createLpBot(options: LpBotOptions) {
  const { api, log, spreadBps } = options;
  const account: PrivateKeyAccount = privateKeyToAccount(options.privateKey);
  const timeWindow = options.timeWindowSeconds ?? 600;
  const fillMargin = BigInt(options.fillMarginSeconds ?? DEFAULT_FILL_MARGIN_SECONDS);
  // Validates the spread once, up front.
  quoteOutputAmount(1n, spreadBps, { input: 0, output: 0 });

  /** quote request id → what happened (quote id, or the refusal code). Never quoted twice. */
  const quoted = new Map<string, string>();
  /** Requests the bot cannot cover yet (balance), logged once each. */
  const shortWarned = new Set<string>();
  /** order hash → fill tx hash this bot broadcast. */
  const sentFills = new Map<Hex, Hex>();
  /** Orders the bot is done with (filled, or not its to fill). */
  const settledOrders = new Set<Hex>();
  let chains = new Map<string, ChainInfo>();
  const clients = new Map<string, ChainClients>();
  let running: Promise<PassReport> | null = null;
  let stopped = true;
  let timer: NodeJS.Timeout | null = null;
  let wake: (() => void) | null = null;
  let loopDone: Promise<void> | null = null;
  let stream: { close(): void } | null = null;
  /** A streamed event asked for a pass now; honoured unless the server asked us to back off (429). */
  let nudged = false;
  let backingOff = false;
  const nudge = () => {
    nudged = true;
    if (!backingOff) wake?.();
  };

  function openStream(): void {
    let streaming = false;
    stream = api.watch({
      onQuoteRequest(event) {
        log.debug({ quoteRequestId: (event.data as { id: string }).id }, 'quote request streamed');
        nudge();
      },
      onOrderUpdate(event) {
        if ((event.data as { status: string }).status === 'deposited') nudge();
      },
      onStatus(status) {
        if (status === 'subscribed' && !streaming) {
          log.info(
            {},
            'streaming quote requests and order updates over WebSocket; polling stays as the fallback',
          );
        }
        streaming = status === 'subscribed';
      },
      onError(error) {
        const fatal = error.status === 401 || error.code === 'UNAUTHORIZED' || error.code === 'FORBIDDEN';
        if (fatal) log.warn({ err: error.message }, 'WebSocket stream refused; polling only');
        else log.debug({ err: error.message }, 'WebSocket stream interrupted; reconnecting');
      },
    });
  }

  async function chain(name: string): Promise<ChainInfo | null> {
    if (!chains.has(name)) chains = new Map((await api.chains()).map((c) => [c.name, c]));
    return chains.get(name) ?? null;
  }

  function clientsFor(info: ChainInfo): ChainClients {
    let c = clients.get(info.name);
    if (!c) {
      const rpcUrl = options.rpcUrls?.[info.name] ?? info.rpcUrl;
      if (!rpcUrl)
        throw new Error(`chain ${info.name} has no public rpcUrl; pass --rpc-url ${info.name}=URL`);
      c = chainClients({ name: info.name, chainId: info.chainId, rpcUrl }, account);
      clients.set(info.name, c);
    }
    return c;
  }

  async function quoteOne(qr: QuoteRequestView, report: PassReport): Promise<void> {
    const skip = (reason: string, level: 'debug' | 'warn' = 'warn') => {
      quoted.set(qr.id, reason);
      log[level]({ quoteRequestId: qr.id }, `not quoting: ${reason}`);
    };
    const [inChain, outChain] = [await chain(qr.inputChain), await chain(qr.outputChain)];
    const inToken = inChain?.tokens.find((t) => t.address.toLowerCase() === qr.inputToken.toLowerCase());
    const outToken = outChain?.tokens.find((t) => t.address.toLowerCase() === qr.outputToken.toLowerCase());
    if (!outChain || !inToken || !outToken) return skip('unknown chain or token');
    const outputAmount = quoteOutputAmount(BigInt(qr.inputAmount), spreadBps, {
      input: inToken.decimals,
      output: outToken.decimals,
    });
    if (outputAmount <= 0n) return skip('input too small for a non-zero output');

    // Quote only what the fill wallet can deliver now (an RPC error here is retried next pass).
    const held = await balanceOf(clientsFor(outChain), hex(outToken.address), account.address);
    if (held < outputAmount) {
      if (!shortWarned.has(qr.id)) {
        shortWarned.add(qr.id);
        log.warn(
          {
            quoteRequestId: qr.id,
            needed: outputAmount.toString(),
            held: held.toString(),
            token: outToken.symbol,
          },
          'not quoting yet: fill wallet holds too little of the output token',
        );
      }
      return;
    }

    try {
      const created = await api.createQuote({
        quoteRequestId: qr.id,
        outputAmount: outputAmount.toString(),
        ...(options.validForSeconds ? { validFor: options.validForSeconds } : {}),
      });
      quoted.set(qr.id, created.quoteId);
      report.quoted.push({
        quoteRequestId: qr.id,
        quoteId: created.quoteId,
        outputAmount: outputAmount.toString(),
      });
      log.info(
        {
          quoteRequestId: qr.id,
          quoteId: created.quoteId,
          inputAmount: qr.inputAmount,
          outputAmount: outputAmount.toString(),
          route: `${inToken.symbol}@${qr.inputChain} -> ${outToken.symbol}@${qr.outputChain}`,
        },
        'quoted',
      );
    } catch (error) {
      if (error instanceof FerryApiError && FINAL_QUOTE_STATUSES.has(error.status)) {
        // 409 CONFLICT: this provider already has an active quote on it (e.g. from before a restart);
        // 409 QUOTE_REQUEST_CLOSED: accepted or expired meanwhile. Either way: done with it.
        return skip(`${error.code} (${error.message})`, error.status === 409 ? 'debug' : 'warn');
      }
      throw error;
    }
  }

  async function fillOne(order: OrderView, report: PassReport): Promise<void> {
    const orderHash = hex(order.blockchainOrderId);
    const done = (msg: string, level: 'info' | 'warn' | 'error', extra: object = {}) => {
      settledOrders.add(orderHash);
      log[level]({ orderId: order.orderId, orderHash, ...extra }, msg);
    };
    const info = await chain(order.details.outputChain);
    if (!info) return done('not filling: unknown output chain', 'error');
    const c = clientsFor(info);

    const sent = sentFills.get(orderHash);
    if (sent) {
      const status = await receiptStatus(c, sent);
      if (status === 'pending') return;
      if (status === 'success')
        return done('fill confirmed; waiting for settlement', 'info', { txHash: sent });
      sentFills.delete(orderHash);
      log.warn({ orderId: order.orderId, txHash: sent }, 'fill reverted; retrying');
    }

    const message = order.quote?.typedData.message;
    if (!message?.filler || !message.fillDeadline) {
      throw new Error('order listed without its quote (includeQuote)');
    }
    if (getAddress(message.filler) !== account.address) {
      return done('not filling: the order names another fill address than this private key', 'error', {
        filler: message.filler,
        wallet: account.address,
      });
    }
    const fillDeadline = BigInt(message.fillDeadline);
    const inputInfo = await chain(order.details.inputChain);
    if (!inputInfo) return done('not filling: unknown input chain', 'error');
    const outputAmount = BigInt(order.details.outputAmount);
    // Everything the checks below need, read together just before the fill: one round of RPC calls, not four.
    const [outputTime, alreadyFilled, escrow, held] = await Promise.all([
      chainTime(c),
      hasFilled(c, hex(info.fill), orderHash, account.address),
      escrowStatus(clientsFor(inputInfo), hex(inputInfo.escrow), orderHash),
      balanceOf(c, hex(order.details.outputToken), account.address),
    ]);
    // The fill contract checks the output chain's block time; an idle chain's latest block can be old, so the
    // local clock is the floor.
    const now = BigInt(Math.floor(Date.now() / 1000));
    if ((outputTime > now ? outputTime : now) + fillMargin > fillDeadline) {
      return done(
        `not filling: within ${fillMargin} s of the fill deadline (the order will be refunded)`,
        'warn',
        { fillDeadline: fillDeadline.toString(), chainTime: outputTime.toString() },
      );
    }
    if (alreadyFilled) return done('already filled by this wallet', 'info', { filler: account.address });
    // Only an order the escrow holds `Active` can pay the fill back; anything else would be a gift.
    if (escrow !== 'active') {
      const msg = `not filling: the escrow holds the order as ${escrow}, not active`;
      // `none` may be a deposit not yet visible to this RPC: look again next pass. Settled or refunded is final.
      if (escrow === 'none') {
        log.warn({ orderId: order.orderId, orderHash, escrow }, msg);
        return;
      }
      return done(msg, 'warn', { escrow });
    }
    if (held < outputAmount) {
      throw new Error(`fill wallet holds ${held} of ${order.details.outputToken}, needs ${outputAmount}`);
    }
    log.info(
      { orderId: order.orderId, orderHash, chain: info.name, outputAmount: order.details.outputAmount },
      'filling',
    );
    const txHash = await sendFill(
      c,
      hex(info.fill),
      {
        orderHash,
        outputToken: hex(order.details.outputToken),
        outputAmount,
        recipient: hex(order.details.recipient),
        fillDeadline,
      },
      (hash) => sentFills.set(orderHash, hash),
    );
    settledOrders.add(orderHash);
    report.filled.push({ orderId: order.orderId, orderHash, txHash });
    log.info({ orderId: order.orderId, orderHash, txHash }, 'filled');
  }

  async function pass(): Promise<PassReport> {
    const report: PassReport = { quoted: [], filled: [], errors: [], retryAfterMs: null };
    const failed = (subject: string, error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof FerryApiError && error.status === 429) {
        report.retryAfterMs = Math.max(report.retryAfterMs ?? 0, (error.retryAfter ?? 5) * 1000);
      }
      report.errors.push({ subject, message });
      log.warn({ subject, err: message }, 'will retry next poll');
    };

    // Fills first: an accepted order is money waiting, a quote is only an offer.
    try {
      for (const order of await api.orders('deposited')) {
        if (report.retryAfterMs !== null) break;
        if (settledOrders.has(hex(order.blockchainOrderId))) continue;
        try {
          await fillOne(order, report);
        } catch (error) {
          failed(order.orderId, error);
        }
      }
    } catch (error) {
      failed('list orders', error);
    }

    if (report.retryAfterMs === null) {
      try {
        for (const qr of await api.openQuoteRequests(timeWindow)) {
          if (report.retryAfterMs !== null) break;
          if (quoted.has(qr.id) || qr.status !== 'open') continue;
          try {
            await quoteOne(qr, report);
          } catch (error) {
            failed(qr.id, error);
          }
        }
      } catch (error) {
        failed('list quote requests', error);
      }
    }
    return report;
  }

  /**
   * What would otherwise fail on every pass, checked once before the first: the API key is a liquidity
   * provider's, this private key's address is that account's fill address (the only wallet that may fill its
   * orders), and every chain's RPC answers with the right chain id. The first problem as one sentence, or null.
   */
  async function checkSetup(): Promise<string | null> {
    let me: Awaited<ReturnType<FerryApi['account']>>;
    try {
      me = await api.account();
    } catch (error) {
      if (error instanceof FerryApiError && error.status === 401)
        return `the API key is not valid at ${api.baseUrl} (${error.code}: ${error.message})`;
      return `Ferry at ${api.baseUrl} does not answer (${(error as Error).message})`;
    }
    if (me.type !== 'liquidityProvider')
      return `the API key belongs to ${me.type} account ${me.id}, not to a liquidity provider`;
    if (me.address?.toLowerCase() !== account.address.toLowerCase()) {
      return `the private key's address ${account.address} is not the fill address of account ${me.id} (${me.address ?? 'none'})`;
    }
    chains = new Map((await api.chains()).map((c) => [c.name, c]));
    for (const info of chains.values()) {
      try {
        const chainId = await clientsFor(info).public.getChainId();
        if (chainId !== info.chainId)
          return `the RPC of chain ${info.name} is chain id ${chainId}, not ${info.chainId}; check --rpc-url ${info.name}=URL`;
      } catch (error) {
        // Only viem's short message: the full one repeats the URL, which may carry a provider key.
        const reason = (error as { shortMessage?: string }).shortMessage ?? (error as Error).message;
        return `the RPC of chain ${info.name} does not answer (${reason}); check --rpc-url ${info.name}=URL`;
      }
    }
    return null;
  }

  return {
    address: account.address,
    checkSetup,

    /** One pass: fill deposited orders, then quote new requests. Never throws for a per-item error. */
    runOnce(): Promise<PassReport> {
      running ??= pass().finally(() => {
        running = null;
      });
      return running;
    },

    /** Polls every `pollMs` until stop() (and runs a pass at once on streamed events); honours Retry-After on a 429. */
    start(pollMs: number): void {
      if (!stopped) return;
      stopped = false;
      if (options.stream !== false) openStream();
      loopDone = (async () => {
        while (!stopped) {
          nudged = false;
          const report = await this.runOnce();
          if (stopped) break;
          const waitMs = Math.max(pollMs, report.retryAfterMs ?? 0);
          backingOff = report.retryAfterMs !== null;
          if (nudged && !backingOff) continue;
          await new Promise<void>((resolve) => {
            wake = resolve;
            timer = setTimeout(resolve, waitMs);
          });
          if (timer) clearTimeout(timer);
          wake = null;
          backingOff = false;
        }
      })();
    },

    /** Stops polling and waits for the pass in progress (a fill being sent finishes first). */
    async stop(): Promise<void> {
      stopped = true;
      stream?.close();
      stream = null;
      if (timer) clearTimeout(timer);
      wake?.();
      await loopDone;
      await running;
    },
  };
}

export type LpBot = ReturnType<typeof createLpBot>;
