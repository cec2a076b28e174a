import type { Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { balanceOf, type ChainClients } from '../chains/lp-chain-clients.ts';
import { protocolFeeOf } from '../domain/protocol-fee.ts';
import type { LpJournal } from '../store/lp-journal.ts';
import { type ChainInfo, type FerryApi, FerryApiError, type QuoteRequestView } from './ferry-api.ts';
import type { BotLog, PassReport } from './lp-bot.ts';
import { quoteOutputAmount } from './pricing.ts';

const hex = (value: string) => value as Hex;

/** Permanent refusals of a quote: asking again cannot succeed (409s mean "already quoted" or "closed"). */
const FINAL_QUOTE_STATUSES = new Set([400, 403, 404, 409, 410, 422]);

/** Quotes one open request at the bot's spread, if its wallet can cover it beyond what it already promised. */
export interface Quoter {
  quoteOne(qr: QuoteRequestView, report: PassReport): Promise<void>;
  /** Whether the bot is done with this request (quoted it, or will never). */
  handled(quoteRequestId: string): boolean;
}

type QuoterDeps = Parameters<typeof createQuoter>[0];

/**
 * Why the fill wallet cannot take this quote now, or null: it quotes only what it can deliver, net of what its other
 * quotes and orders promise, and one offerer's requests (however many accounts ask for that wallet) hold at most
 * their share of it, so other money movers still get quotes.
 */
async function shortfall(
  deps: QuoterDeps,
  shareMillionths: bigint,
  out: { info: ChainInfo; token: ChainInfo['tokens'][number] },
  qr: QuoteRequestView,
  outputAmount: bigint,
): Promise<{ msg: string; extra: Record<string, string> } | null> {
  const { info, token } = out;
  const now = Date.now();
  const [held, reserved, offererHolds] = await Promise.all([
    balanceOf(deps.clientsFor(info), hex(token.address), deps.account.address),
    deps.journal.reserved(info.name, token.address, now),
    deps.journal.reserved(info.name, token.address, now, qr.offerer),
  ]);
  const cap = (held * shareMillionths) / 1_000_000n;
  if (offererHolds + outputAmount > cap) {
    return {
      msg: "not quoting yet: this offerer's open quotes would hold more than its share of the fill wallet",
      extra: { offerer: qr.offerer, offererHolds: `${offererHolds}`, cap: `${cap}`, token: token.symbol },
    };
  }
  if (held - reserved >= outputAmount) return null;
  return {
    msg: 'not quoting yet: fill wallet holds too little of the output token',
    extra: { held: `${held}`, reserved: `${reserved}`, token: token.symbol },
  };
}

export function createQuoter(deps: {
  readonly api: FerryApi;
  readonly account: PrivateKeyAccount;
  readonly journal: LpJournal;
  readonly log: BotLog;
  readonly spreadBps: number;
  readonly validForSeconds?: number;
  /** Share of the wallet's balance of a token one offerer's open quotes and orders may hold (0-1]. */
  readonly maxOffererShare: number;
  chain(name: string): Promise<ChainInfo | null>;
  clientsFor(info: ChainInfo): ChainClients;
}): Quoter {
  const { api, log, spreadBps, chain } = deps;
  /** quote request id → what happened (quote id, or the refusal). Never quoted twice. */
  const quoted = new Map<string, string>();
  /** Requests the bot cannot cover yet (balance), logged once each. */
  const shortWarned = new Set<string>();
  const options = { journal: deps.journal, validForSeconds: deps.validForSeconds };
  const shareMillionths = BigInt(Math.round(deps.maxOffererShare * 1_000_000));
  // Read once: the fee is a setting of the Ferry the bot quotes on, fixed while it runs.
  let feeBps: Promise<number> | null = null;
  const protocolFeeBps = () => {
    feeBps ??= api.protocolFeeBps().catch((error: unknown) => {
      feeBps = null;
      throw error;
    });
    return feeBps;
  };

  async function quoteOne(qr: QuoteRequestView, report: PassReport): Promise<void> {
    const skip = (reason: string, level: 'debug' | 'warn' = 'warn') => {
      quoted.set(qr.id, reason);
      log[level]({ quoteRequestId: qr.id }, `not quoting: ${reason}`);
    };
    const [inChain, outChain] = [await chain(qr.inputChain), await chain(qr.outputChain)];
    const inToken = inChain?.tokens.find((t) => t.address.toLowerCase() === qr.inputToken.toLowerCase());
    const outToken = outChain?.tokens.find((t) => t.address.toLowerCase() === qr.outputToken.toLowerCase());
    if (!outChain || !inToken || !outToken) return skip('unknown chain or token');
    // The filler is paid the input less Ferry's fee, so that is what the bot prices.
    const paid = BigInt(qr.inputAmount) - protocolFeeOf(BigInt(qr.inputAmount), await protocolFeeBps());
    const outputAmount = quoteOutputAmount(paid, spreadBps, {
      input: inToken.decimals,
      output: outToken.decimals,
    });
    if (outputAmount <= 0n) return skip('input too small for a non-zero output');

    // An RPC error here is retried next pass.
    const short = await shortfall(
      deps,
      shareMillionths,
      { info: outChain, token: outToken },
      qr,
      outputAmount,
    );
    if (short) {
      if (!shortWarned.has(qr.id)) {
        shortWarned.add(qr.id);
        log.warn({ quoteRequestId: qr.id, needed: outputAmount.toString(), ...short.extra }, short.msg);
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
      await options.journal.recordQuote({
        quoteId: created.quoteId,
        quoteRequestId: qr.id,
        inputChain: qr.inputChain,
        inputToken: qr.inputToken,
        inputAmount: BigInt(qr.inputAmount),
        outputChain: qr.outputChain,
        outputToken: qr.outputToken,
        outputAmount,
        offerer: qr.offerer,
        spreadBps,
        status: 'active',
        reservedUntil: created.quote.endTime * 1000,
      });
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

  return { quoteOne, handled: (id) => quoted.has(id) };
}
