import type { PrivateKeyAccount } from 'viem/accounts';
import type { ChainClients } from '../chains/settlement/lp-chain-clients.ts';
import { quoteHoldsUntil } from '../domain/lp-coverage.ts';
import { protocolFeeOf } from '../domain/protocol-fee.ts';
import type { LpJournal } from '../store/ledgers/lp-journal.ts';
import {
  type ChainInfo,
  type FerryApi,
  FerryApiError,
  type FerryTerms,
  type QuoteEnvelope,
  type QuoteRequestView,
} from './ferry-api.ts';
import type { BotLog } from './lp-bot-log.ts';
import type { PassReport } from './lp-pass-report.ts';
import { walletCover } from './lp-wallet-cover.ts';
import { quoteOutputAmount } from './pricing.ts';

/**
 * Permanent refusals of a quote: asking again cannot succeed (409s mean "already quoted" or "closed"). A 422 for
 * coverage is not among them (isCoverageRefusal).
 */
const FINAL_QUOTE_STATUSES = new Set([400, 403, 404, 409, 410, 422]);

/**
 * Posts of one request Ferry may refuse for coverage before the bot gives it up. The bot reserves by Ferry's own
 * rule (domain/lp-coverage.ts), so a refusal means Ferry counts promises the bot does not know of (another instance
 * on the same key, a quote made by hand, a journal lost): it is tried again only once the balance or the bot's own
 * promises have changed, and only so often, so it cannot spin.
 */
const MAX_COVERAGE_POSTS = 4;

/** Ferry's 422 INSUFFICIENT_BALANCE on a quote: its fill address does not cover it on top of what Ferry counts. */
function isCoverageRefusal(error: unknown): error is FerryApiError {
  return error instanceof FerryApiError && error.status === 422 && error.code === 'INSUFFICIENT_BALANCE';
}

/** Quotes one open request at the bot's spread, if its wallet can cover it beyond what it already promised. */
export interface Quoter {
  quoteOne(qr: QuoteRequestView, report: PassReport): Promise<void>;
  /** Whether the bot is done with this request (quoted it, or will never). */
  handled(quoteRequestId: string): boolean;
}

type QuoterDeps = Parameters<typeof createQuoter>[0];

/**
 * Writes a quote Ferry took into the journal and the pass's report. Until its order shows, the bot cannot tell an
 * accepted quote from an active one: it reserves the output as long as Ferry may count it, through the swap's
 * deposit window (quoteHoldsUntil).
 */
async function recordQuoted(
  deps: QuoterDeps,
  { qr, outputAmount, route }: { qr: QuoteRequestView; outputAmount: bigint; route: string },
  created: QuoteEnvelope,
  openWindowSeconds: number,
  report: PassReport,
): Promise<void> {
  await deps.journal.recordQuote({
    quoteId: created.quoteId,
    quoteRequestId: qr.id,
    inputChain: qr.inputChain,
    inputToken: qr.inputToken,
    inputAmount: BigInt(qr.inputAmount),
    outputChain: qr.outputChain,
    outputToken: qr.outputToken,
    outputAmount,
    offerer: qr.offerer,
    spreadBps: deps.spreadBps,
    status: 'active',
    reservedUntil: quoteHoldsUntil(created.quote.endTime, openWindowSeconds) * 1000,
  });
  report.quoted.push({
    quoteRequestId: qr.id,
    quoteId: created.quoteId,
    outputAmount: outputAmount.toString(),
  });
  const amounts = { inputAmount: qr.inputAmount, outputAmount: outputAmount.toString() };
  deps.log.info({ quoteRequestId: qr.id, quoteId: created.quoteId, ...amounts, route }, 'quoted');
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
  /**
   * Requests Ferry refused for coverage: the wallet's balance and reservations the bot saw when it posted, and how
   * often it has posted. Posted again only once those changed (MAX_COVERAGE_POSTS).
   */
  const refused = new Map<string, { seen: string; posts: number }>();
  const options = { journal: deps.journal, validForSeconds: deps.validForSeconds };
  const shareMillionths = BigInt(Math.round(deps.maxOffererShare * 1_000_000));
  // Read once: the fee and the deposit window are settings of the Ferry the bot quotes on, fixed while it runs.
  let termsRead: Promise<FerryTerms> | null = null;
  const terms = () => {
    termsRead ??= api.terms().catch((error: unknown) => {
      termsRead = null;
      throw error;
    });
    return termsRead;
  };

  /** Posts the quote and reserves its output in the journal (recordQuoted). */
  async function post(qr: QuoteRequestView, outputAmount: bigint, report: PassReport, route: string) {
    const created = await api.createQuote({
      quoteRequestId: qr.id,
      outputAmount: outputAmount.toString(),
      ...(options.validForSeconds ? { validFor: options.validForSeconds } : {}),
    });
    quoted.set(qr.id, created.quoteId);
    refused.delete(qr.id);
    await recordQuoted(deps, { qr, outputAmount, route }, created, (await terms()).openWindowSeconds, report);
  }

  async function quoteOne(qr: QuoteRequestView, report: PassReport): Promise<void> {
    const skip = (reason: string, level: 'debug' | 'warn' = 'warn') => {
      quoted.set(qr.id, reason);
      refused.delete(qr.id);
      log[level]({ quoteRequestId: qr.id }, `not quoting: ${reason}`);
    };
    const [inChain, outChain] = [await chain(qr.inputChain), await chain(qr.outputChain)];
    const inToken = inChain?.tokens.find((t) => t.address.toLowerCase() === qr.inputToken.toLowerCase());
    const outToken = outChain?.tokens.find((t) => t.address.toLowerCase() === qr.outputToken.toLowerCase());
    if (!outChain || !inToken || !outToken) return skip('unknown chain or token');
    // The filler is paid the input less Ferry's fee, so that is what the bot prices.
    const { protocolFeeBps } = await terms();
    const paid = BigInt(qr.inputAmount) - protocolFeeOf(BigInt(qr.inputAmount), protocolFeeBps);
    const outputAmount = quoteOutputAmount(paid, spreadBps, {
      input: inToken.decimals,
      output: outToken.decimals,
    });
    if (outputAmount <= 0n) return skip('input too small for a non-zero output');

    // An RPC error here is retried next pass.
    const cover = await walletCover(
      deps,
      shareMillionths,
      { info: outChain, token: outToken },
      qr.offerer,
      outputAmount,
    );
    if (cover.short) {
      if (!shortWarned.has(qr.id)) {
        shortWarned.add(qr.id);
        log.warn(
          { quoteRequestId: qr.id, needed: outputAmount.toString(), ...cover.short.extra },
          cover.short.msg,
        );
      }
      return;
    }
    const seen = `${cover.held}/${cover.reserved}`;
    const before = refused.get(qr.id);
    // Refused for coverage with the wallet as it is now: asking again would be refused again.
    if (before?.seen === seen) return;

    try {
      await post(
        qr,
        outputAmount,
        report,
        `${inToken.symbol}@${qr.inputChain} -> ${outToken.symbol}@${qr.outputChain}`,
      );
    } catch (error) {
      if (isCoverageRefusal(error)) {
        const posts = (before?.posts ?? 0) + 1;
        if (posts >= MAX_COVERAGE_POSTS) return skip(`${error.code} ${posts} times (${error.message})`);
        refused.set(qr.id, { seen, posts });
        log.warn(
          { quoteRequestId: qr.id, held: `${cover.held}`, reserved: `${cover.reserved}`, err: error.message },
          "Ferry counts more promised than the bot does: quoting it again once the wallet's balance or reservations change",
        );
        return;
      }
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
