import { reservedAddressRole } from '../chains/chain-registry.ts';
import { type Address, normalizeAddress, sameAddress } from '../domain/address.ts';
import { parseAmount } from '../domain/amount.ts';
import { AppError, fieldError } from '../domain/app-error.ts';
import { newId } from '../domain/ids.ts';
import { type QuoteRequestStatus, quoteRequestExpiresAt } from '../domain/lifecycle.ts';
import { type PageRequest, toPage } from '../domain/pagination.ts';
import type { Principal } from '../domain/principal.ts';
import { publicQuoteRequestView } from '../domain/public-views.ts';
import type { QuoteRequest, QuoteRequestTerms } from '../domain/records.ts';
import { findQuoteRequest, listQuoteRequests, quoteRequestInsert } from '../store/quote-requests-store.ts';
import type { ServiceDeps } from './service-deps.ts';

export interface QuoteRequestInput {
  readonly recipient: string;
  readonly offerer: string;
  readonly inputToken: string;
  readonly outputToken: string;
  readonly inputAmount: string;
  readonly inputChain: string;
  readonly outputChain: string;
}

export function createQuoteRequestService(deps: ServiceDeps) {
  const { database, clock, registry, chains, config } = deps;

  /** Checks the terms against the registry; every problem is reported, each with its field path. */
  function validateTerms(input: QuoteRequestInput): QuoteRequestTerms {
    const problems: AppError[] = [];
    const attempt = <T>(fn: () => T): T | undefined => {
      try {
        return fn();
      } catch (error) {
        if (error instanceof AppError) problems.push(error);
        else throw error;
        return undefined;
      }
    };
    const offerer = attempt(() => normalizeAddress(input.offerer, 'body.offerer'));
    const recipient = attempt(() => checkRecipient(input.recipient));
    const inputAmount = attempt(() => parseAmount(input.inputAmount, 'body.inputAmount'));
    const inputToken = attempt(() =>
      checkToken(input.inputChain, input.inputToken, 'inputChain', 'inputToken'),
    );
    const outputToken = attempt(() =>
      checkToken(input.outputChain, input.outputToken, 'outputChain', 'outputToken'),
    );
    if (inputAmount !== undefined && inputToken !== undefined) {
      attempt(() => checkMinAmount(input.inputChain, inputToken, inputAmount));
    }
    if (problems.length > 0) {
      // One summary for the whole body; the most specific code wins so clients can branch on it.
      const code =
        problems.find((p) => p.code === 'INVALID_CHAIN')?.code ??
        problems.find((p) => p.code === 'INVALID_TOKEN')?.code ??
        (problems.every((p) => p.code === 'AMOUNT_TOO_SMALL') ? 'AMOUNT_TOO_SMALL' : 'VALIDATION_ERROR');
      throw new AppError(
        code,
        problems.length === 1
          ? (problems[0]?.message ?? 'invalid request')
          : 'the request has invalid fields',
        problems.flatMap((p) => p.details),
      );
    }
    // Every field parsed (problems would have thrown above), so the casts only drop `undefined`.
    return {
      offerer: offerer as Address,
      recipient: recipient as Address,
      inputToken: inputToken as Address,
      outputToken: outputToken as Address,
      inputAmount: inputAmount as bigint,
      inputChain: input.inputChain,
      outputChain: input.outputChain,
    };
  }

  function checkRecipient(raw: string): Address {
    const recipient = normalizeAddress(raw, 'body.recipient');
    const role = reservedAddressRole(registry, recipient);
    if (role !== null) {
      throw fieldError(
        'VALIDATION_ERROR',
        'body.recipient',
        `must not be ${role}: tokens sent there could never be spent`,
      );
    }
    return recipient;
  }

  /** Every order costs the relayer gas on two chains, so dust is refused (the token's registry minAmount). */
  function checkMinAmount(chainName: string, tokenAddress: Address, amount: bigint): void {
    const token = registry.token(chainName, tokenAddress);
    if (token && amount < token.minAmount) {
      throw fieldError(
        'AMOUNT_TOO_SMALL',
        'body.inputAmount',
        `must be at least ${token.minAmount} base units of ${token.symbol} on ${chainName} (the minimum swap)`,
      );
    }
  }

  function checkToken(chainName: string, token: string, chainField: string, tokenField: string) {
    if (!registry.chain(chainName)) {
      const supported = registry.chains.map((c) => c.name).join(', ');
      throw fieldError(
        'INVALID_CHAIN',
        `body.${chainField}`,
        `chain "${chainName}" is not supported; supported chains: ${supported}`,
      );
    }
    const address = normalizeAddress(token, `body.${tokenField}`);
    if (!registry.token(chainName, address)) {
      throw fieldError(
        'INVALID_TOKEN',
        `body.${tokenField}`,
        `token ${address} is not supported on ${chainName}`,
      );
    }
    return address;
  }

  return {
    /** Creates an open quote request after checking the offerer can actually pay it. */
    async create(principal: Principal, input: QuoteRequestInput): Promise<QuoteRequest> {
      const terms = validateTerms(input);
      if (terms.inputChain === terms.outputChain) {
        throw fieldError(
          'VALIDATION_ERROR',
          'body.outputChain',
          'must differ from inputChain: Ferry swaps across chains',
        );
      }
      if (principal.sessionAddress !== null && !sameAddress(principal.sessionAddress, terms.offerer)) {
        throw fieldError('FORBIDDEN', 'body.offerer', 'must be the signed-in wallet address');
      }
      const balance = await chains.balanceOf(
        terms.inputChain,
        terms.inputToken,
        terms.offerer,
        terms.inputAmount,
      );
      if (balance < terms.inputAmount) {
        throw fieldError(
          'INSUFFICIENT_BALANCE',
          'body.inputAmount',
          `offerer holds ${balance} base units of the input token, less than ${terms.inputAmount}`,
        );
      }
      const now = clock.now();
      const qr: QuoteRequest = {
        ...terms,
        id: newId('qr', now),
        accountId: principal.accountId,
        status: 'open',
        acceptedQuoteId: null,
        createdAt: now,
        updatedAt: now,
        expiresAt: quoteRequestExpiresAt(now, config.quoteRequestTtlSeconds),
      };
      await database.write(quoteRequestInsert(qr), [
        {
          type: 'quoteRequest.created',
          occurredAt: now,
          data: publicQuoteRequestView(qr),
          accountIds: [principal.accountId],
        },
      ]);
      return qr;
    },

    /** Money movers see their own requests; liquidity providers see any (they quote on them). */
    async get(principal: Principal, id: string): Promise<QuoteRequest> {
      const qr = await findQuoteRequest(database.db, id);
      if (!qr || (principal.accountType === 'moneyMover' && qr.accountId !== principal.accountId)) {
        throw fieldError('QUOTE_REQUEST_NOT_FOUND', 'params.id', `quote request ${id} does not exist`);
      }
      return qr;
    },

    async list(
      principal: Principal,
      query: { timeWindow: number; status: QuoteRequestStatus | null },
      page: PageRequest,
    ) {
      const now = clock.now();
      const isLp = principal.accountType === 'liquidityProvider';
      const result = await listQuoteRequests(
        database.db,
        {
          accountId: isLp ? null : principal.accountId,
          createdAfter: new Date(now.getTime() - query.timeWindow * 1000),
          // Liquidity providers look for work: unless they ask otherwise, they get the open requests.
          status: query.status ?? (isLp ? 'open' : null),
          now,
        },
        page,
      );
      return toPage(result.items, result.total, page);
    },
  };
}

export type QuoteRequestService = ReturnType<typeof createQuoteRequestService>;
