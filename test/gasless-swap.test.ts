import {
  type AbiFunction,
  createPublicClient,
  erc20Abi,
  getAbiItem,
  type Hex,
  http,
  toFunctionSelector,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPermit, signQuote } from '../sdk/src/index.ts';
import { loadArtifact } from '../src/chains/contract-artifacts.ts';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import { anvilKnobs } from './support/anvil-knobs.ts';
import { balanceOf, fillSwap, transferToken } from './support/chain-actors.ts';
import { acceptQuote, createQuote, createQuoteRequest, expectError } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { waitForStatus } from './support/swap-steps.ts';
import { startWorkerProcess } from './support/worker-process.ts';

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
const DEPOSIT_WITH_PERMIT = toFunctionSelector(
  getAbiItem({ abi: loadArtifact('FerryEscrow').abi, name: 'depositWithPermit' }) as AbiFunction,
);

/**
 * Gasless deposits: the offerer signs the order and an EIP-2612 permit, and Ferry deposits with
 * depositWithPermit. The offerer holds tokens but no native coin and has approved nothing. Refused permits write
 * nothing. Runs on SQLite, or on PostgreSQL with FERRY_TEST_PG.
 */
describe('gasless swaps (EIP-2612 permits)', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };

  beforeAll(async () => {
    h = await startHarness(
      { rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 } },
      {
        // USDT on every devnet loses its permit domain here: a token that takes no permits.
        registry: (file) => ({
          chains: file.chains.map((chain) => ({
            ...chain,
            tokens: chain.tokens.map(({ permit, ...token }) =>
              token.symbol === 'USDT' ? token : { ...token, permit },
            ),
          })),
        }),
      },
    );
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
  });
  afterAll(async () => {
    await h?.close();
  });

  const chainA = () => h.registry.chain(h.chainA)!;
  const publicA = () => createPublicClient({ transport: http(chainA().rpcUrl) });
  const tokenA = (symbol: string) => chainA().tokens.find((t) => t.symbol === symbol)!;

  /** A fresh wallet holding `amount` of the token on chain A, no native coin, no allowance. */
  async function gaslessWallet(token: Hex, amount: bigint) {
    const wallet = privateKeyToAccount(generatePrivateKey());
    await transferToken(h, h.chainA, token, h.offerer, wallet.address, amount);
    await anvilKnobs(chainA().rpcUrl).setBalance(wallet.address, 0n);
    return wallet;
  }

  /** An accepted quote for `offerer`'s swap of `input` of `token` on chain A to USDC on chain B. */
  async function acceptedQuote(offerer: Hex, token: Hex, input: bigint) {
    const requestId = await createQuoteRequest(h, mm.apiKey, {
      offerer,
      inputToken: token,
      inputAmount: input.toString(),
    });
    const quote = await createQuote(h, lp.apiKey, requestId, (input - 10_000n).toString());
    await acceptQuote(h, mm.apiKey, quote.quoteId);
    return quote;
  }

  const swap = (body: Record<string, unknown>) =>
    h.http('POST', '/api/v1/swaps', { apiKey: mm.apiKey, body });

  async function counts() {
    const db = h.app.database.db;
    const [events, permits] = await Promise.all([
      db
        .selectFrom('events')
        .select((e) => e.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
      db
        .selectFrom('swap_permits')
        .select((e) => e.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    return { events: Number(events.n), permits: Number(permits.n) };
  }

  async function expectNothingWritten(orderId: string, before: { events: number; permits: number }) {
    expectError(
      await h.http('GET', `/api/v1/orders/${orderId}`, { apiKey: mm.apiKey }),
      404,
      'ORDER_NOT_FOUND',
    );
    expect(await counts()).toEqual(before);
  }

  it('shows the permit domain of each token in /api/public/chains', async () => {
    const res = await h.http('GET', '/api/public/chains');
    const tokens = res.body.data.chains[0].tokens;
    expect(tokens.find((t: { symbol: string }) => t.symbol === 'USDC').permit).toEqual({
      name: 'USD Coin',
      version: '2',
    });
    expect(tokens.find((t: { symbol: string }) => t.symbol === 'USDT').permit).toBeNull();
  });

  it('completes a swap whose offerer has no gas and no allowance, after a worker restart before the deposit', async () => {
    const input = 3_000_000n;
    const usdc = tokenA('USDC');
    const offerer = await gaslessWallet(usdc.address, input);
    const escrow = chainA().contracts.escrow;
    const allowance = () =>
      publicA().readContract({
        address: usdc.address,
        abi: erc20Abi,
        functionName: 'allowance',
        args: [offerer.address, escrow],
      });
    expect(await allowance()).toBe(0n);
    expect(await publicA().getBalance({ address: offerer.address })).toBe(0n);

    const quote = await acceptedQuote(offerer.address, usdc.address, input);
    const signature = await signQuote(offerer, quote.typedData);
    const permit = await signPermit(offerer, quote.typedData, {
      permit: usdc.permit!,
      publicClient: publicA(),
    });
    const res = await swap({ orderId: quote.orderId, quoteId: quote.quoteId, signature, permit });
    expect(res.status).toBe(201);

    // The first worker decides to deposit and dies before writing it down; the next one only has the database.
    const crashing = startWorkerProcess(h, ['before-record:deposit']);
    const timer = setTimeout(() => void crashing.stop(), 60_000);
    expect((await crashing.exited.finally(() => clearTimeout(timer))).signal).toBe('SIGKILL');
    const worker = startWorkerProcess(h);
    try {
      const deposited = await waitForStatus(h, mm.apiKey, quote.orderId, 'deposited', 60_000);
      const tx = await publicA().getTransaction({ hash: deposited.details.srcChainTxHash });
      expect(tx.input.slice(0, 10)).toBe(DEPOSIT_WITH_PERMIT);
      const message = quote.typedData.message;
      await fillSwap(h, lpWallet, { typedData: quote.typedData }, BigInt(message.outputAmount));
      await waitForStatus(h, mm.apiKey, quote.orderId, 'completed', 60_000);
    } finally {
      await worker.stop();
    }
    expect(await balanceOf(h, h.chainA, usdc.address, offerer.address)).toBe(0n);
    expect(await publicA().getBalance({ address: offerer.address })).toBe(0n);
    expect(await publicA().getTransactionCount({ address: offerer.address })).toBe(0);
  }, 180_000);

  it('refuses a permit signed by someone else at body.permit.signature, writing nothing', async () => {
    const usdc = tokenA('USDC');
    const offerer = await gaslessWallet(usdc.address, 1_000_000n);
    const quote = await acceptedQuote(offerer.address, usdc.address, 1_000_000n);
    const permit = await signPermit(h.otherWallet, quote.typedData, {
      permit: usdc.permit!,
      publicClient: publicA(),
    });
    const before = await counts();
    const res = await swap({
      orderId: quote.orderId,
      quoteId: quote.quoteId,
      signature: await signQuote(offerer, quote.typedData),
      permit,
    });
    expectError(res, 400, 'INVALID_SIGNATURE', 'body.permit.signature');
    await expectNothingWritten(quote.orderId, before);
  });

  it('refuses a permit whose deadline is before the openDeadline at body.permit.deadline, writing nothing', async () => {
    const usdc = tokenA('USDC');
    const offerer = await gaslessWallet(usdc.address, 1_000_000n);
    const quote = await acceptedQuote(offerer.address, usdc.address, 1_000_000n);
    const permit = await signPermit(offerer, quote.typedData, {
      permit: usdc.permit!,
      nonce: 0n,
      deadline: BigInt(quote.typedData.message.openDeadline) - 1n,
    });
    const before = await counts();
    const res = await swap({
      orderId: quote.orderId,
      quoteId: quote.quoteId,
      signature: await signQuote(offerer, quote.typedData),
      permit,
    });
    expectError(res, 400, 'VALIDATION_ERROR', 'body.permit.deadline');
    await expectNothingWritten(quote.orderId, before);
  });

  it('refuses a permit for a token without permits at body.permit, writing nothing', async () => {
    const usdt = tokenA('USDT');
    const quote = await acceptedQuote(h.offerer.address, usdt.address, 1_000_000n);
    const permit = await signPermit(h.offerer, quote.typedData, {
      permit: { name: 'Devnet Tether USD', version: '1' },
      nonce: 0n,
    });
    const before = await counts();
    const res = await swap({
      orderId: quote.orderId,
      quoteId: quote.quoteId,
      signature: await signQuote(h.offerer, quote.typedData),
      permit,
    });
    expectError(res, 400, 'VALIDATION_ERROR', 'body.permit');
    await expectNothingWritten(quote.orderId, before);
  });
});
