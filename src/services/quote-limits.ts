import type { Address } from '../domain/address.ts';
import { exceedsPremium } from '../domain/amount.ts';
import { type AppError, fieldError } from '../domain/app-error.ts';
import { promiseBounds } from '../domain/lp-coverage.ts';
import type { QuoteRequest } from '../domain/records.ts';
import type { Coverage } from '../store/tables/lp-commitments-store.ts';
import type { ServiceDeps } from './service-deps.ts';

/** What a liquidity provider's quote may promise: a price within the premium, an output its fill address covers. */
export interface QuoteLimits {
  /**
   * An LP could otherwise win a request with an absurd price it never means to fill, locking the offerer's funds
   * until the deadline.
   */
  checkPremium(request: QuoteRequest, outputAmount: bigint): void;
  /**
   * A quote the LP's fill address cannot cover would lock the offerer's funds until the deadline for nothing. It
   * must cover this quote together with what the LP already promised on that chain and token (its active quotes,
   * its accepted quotes not yet swapped, its unfilled orders): `held` is read before the insert, the promises by
   * the insert itself (lp-commitments-store.ts coverCheck). This is what that check is given.
   */
  coverage(input: CoverageInput): Coverage;
  /** The refusal when the insert found `promised` already promised (UncoveredQuoteError). */
  uncovered(input: CoverageInput, promised: bigint): AppError;
}

export interface CoverageInput {
  readonly request: QuoteRequest;
  readonly lpAccountId: string;
  readonly filler: Address;
  readonly held: bigint;
  readonly outputAmount: bigint;
}

export function createQuoteLimits(deps: Pick<ServiceDeps, 'clock' | 'registry' | 'config'>): QuoteLimits {
  const { clock, registry, config } = deps;
  return {
    checkPremium(request, outputAmount) {
      const inToken = registry.token(request.inputChain, request.inputToken);
      const outToken = registry.token(request.outputChain, request.outputToken);
      if (!inToken || !outToken) {
        throw fieldError(
          'INVALID_TOKEN',
          'body.quoteRequestId',
          'the request names a token that is no longer supported',
        );
      }
      const input = { amount: request.inputAmount, decimals: inToken.decimals };
      const output = { amount: outputAmount, decimals: outToken.decimals };
      if (exceedsPremium(input, output, config.maxQuotePremiumBps)) {
        throw fieldError(
          'VALIDATION_ERROR',
          'body.outputAmount',
          `must not exceed the input amount by more than ${config.maxQuotePremiumBps} bps (in the input token's decimals)`,
        );
      }
    },

    coverage(input) {
      const now = clock.now();
      return {
        lpAccountId: input.lpAccountId,
        chain: input.request.outputChain,
        token: input.request.outputToken,
        ...promiseBounds(now, config.openWindowSeconds),
        amount: input.outputAmount,
        held: input.held,
      };
    },

    uncovered(input, promised) {
      const { request, filler, held, outputAmount } = input;
      return fieldError(
        'INSUFFICIENT_BALANCE',
        'body.outputAmount',
        `the fill address ${filler} holds ${held} base units of the output token on ${request.outputChain}; ` +
          `${promised} of it is already promised to this liquidity provider's open quotes and unfilled orders, ` +
          `which leaves less than ${outputAmount}`,
      );
    },
  };
}
