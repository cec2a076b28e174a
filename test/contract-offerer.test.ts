import {
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  hashMessage,
  http,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainById } from '../src/chains/chain-by-id.ts';
import { loadArtifact } from '../src/chains/contract-artifacts.ts';
import { ANVIL_KEYS, DEVNET_RELAYER_KEY } from '../src/devnet/devnet.ts';
import {
  createSafe,
  execSafeTransaction,
  type SafeContracts,
  safeMessageSignature,
} from '../src/devnet/safe-devnet.ts';
import { orderTermsFrom } from '../src/domain/order-typed-data.ts';
import { fillSwap, transferToken } from './support/chain-actors.ts';
import { acceptQuote, createQuote, createQuoteRequest, expectError, WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { waitForStatus } from './support/swap-steps.ts';

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
const relayer = privateKeyToAccount(DEVNET_RELAYER_KEY);

/**
 * A Safe (Safe's own 1.4.1 contracts, deployed on every devnet) as the offerer: 2-of-2, its order signature the
 * Safe's EIP-1271 scheme through its CompatibilityFallbackHandler. The API checks it with isValidSignature on the
 * input chain; the escrow must do the same to take the deposit (FerryEscrow with SignatureCheck).
 */
describe('a Safe as the offerer (EIP-1271)', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };
  const owners = [privateKeyToAccount(generatePrivateKey()), privateKeyToAccount(generatePrivateKey())];
  let safe: Hex;

  const devnetA = () => h.devnets.chains.find((c) => c.name === h.chainA)!;
  const clientsA = () => {
    const chain = chainById(devnetA().chainId, devnetA().rpcUrl);
    return {
      publicClient: createPublicClient({ chain, transport: http() }),
      // The Safe's transactions are sent (and paid for) by a funded devnet wallet; the owners only sign.
      wallet: createWalletClient({ account: h.offerer, chain, transport: http() }),
    };
  };

  beforeAll(async () => {
    h = await startHarness({
      worker: WORKER_ON,
      rateLimits: { apiKey: 100_000, session: 100_000, ip: 100_000 },
    });
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
    safe = await createSafe(clientsA(), devnetA().safe as SafeContracts, {
      owners: owners.map((o) => o.address),
      threshold: 2,
    });
    await transferToken(h, h.chainA, h.usdcA, h.offerer, safe, 10_000_000n);
    // The Safe approves the escrow with a transaction both owners sign.
    await execSafeTransaction(clientsA(), {
      safe,
      to: h.usdcA,
      data: encodeFunctionData({
        abi: erc20Abi,
        functionName: 'approve',
        args: [h.registry.chain(h.chainA)!.contracts.escrow, 10_000_000n],
      }),
      owners,
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  async function acceptedQuote(input: bigint) {
    const requestId = await createQuoteRequest(h, mm.apiKey, {
      offerer: safe,
      inputAmount: input.toString(),
    });
    const quote = await createQuote(h, lp.apiKey, requestId, (input - 10_000n).toString());
    await acceptQuote(h, mm.apiKey, quote.quoteId);
    return quote;
  }

  const swap = (body: Record<string, unknown>) =>
    h.http('POST', '/api/v1/swaps', { apiKey: mm.apiKey, body });

  /**
   * Whether this escrow asks the offerer contract (a STATICCALL of isValidSignature) when it checks a deposit: the
   * EIP-1271 escrow does, an ECDSA-only escrow never can take a Safe's order.
   */
  async function escrowAsksContract(typedData: any, signature: Hex): Promise<boolean> {
    const chain = h.registry.chain(h.chainA)!;
    const data = encodeFunctionData({
      abi: loadArtifact('FerryEscrow').abi,
      functionName: 'deposit',
      args: [orderTermsFrom(typedData), signature],
    });
    const trace = await clientsA().publicClient.request({
      method: 'debug_traceCall' as never,
      params: [
        { from: relayer.address, to: chain.contracts.escrow, data },
        'latest',
        { tracer: 'callTracer' },
      ] as never,
    });
    return JSON.stringify(trace).toLowerCase().includes(`"input":"0x1626ba7e`);
  }

  /** The Safe's swap the API took, for the deposit that follows. */
  let taken: { quote: Awaited<ReturnType<typeof acceptedQuote>>; orderHash: Hex; signature: Hex } | undefined;

  it('every devnet has Safe 1.4.1 at the addresses docs/contract-wallets.md gives', () => {
    for (const chain of h.devnets.chains) {
      expect(chain.safe).toEqual({
        singleton: '0x5FC8d32690cc91D4c39d9d3abcBD16989F875707',
        proxyFactory: '0x0165878A594ca255338adfa4d48449f69242Eb8F',
        fallbackHandler: '0xa513E6E4b8f2a923D98304ec87F64353C4D5C853',
      });
    }
  });

  it('the API takes the Safe signature of both owners (EIP-1271 isValidSignature on the input chain)', async () => {
    const quote = await acceptedQuote(2_000_000n);
    const signature = await safeMessageSignature(clientsA().publicClient, {
      safe,
      digest: quote.quote.signingHash,
      owners,
    });
    expect((signature.length - 2) / 2).toBe(130);
    const res = await swap({ orderId: quote.orderId, quoteId: quote.quoteId, signature });
    expect(res.status).toBe(201);
    expect(res.body.data.order.signature).toBe(signature);
    // The same swap again is the same order.
    const again = await swap({ orderId: quote.orderId, quoteId: quote.quoteId, signature });
    expect(again.status).toBe(200);
    taken = { quote, orderHash: res.body.data.blockchainOrderId, signature };
  });

  it("the Safe's swap is deposited, filled and completed on an escrow that checks EIP-1271", async () => {
    if (!taken) throw new Error('the swap of the previous test was not taken');
    const { quote, signature } = taken;
    // The escrow asks the Safe itself (EIP-1271) at deposit, not ECDSA.
    expect(await escrowAsksContract(quote.typedData, signature)).toBe(true);
    await waitForStatus(h, mm.apiKey, quote.orderId, 'deposited', 40_000);
    const message = quote.typedData.message;
    await fillSwap(h, lpWallet, { typedData: quote.typedData }, BigInt(message.outputAmount));
    await waitForStatus(h, mm.apiKey, quote.orderId, 'completed', 40_000);
  }, 120_000);

  it('refuses a Safe signature with one owner missing at body.signature, writing no order', async () => {
    const quote = await acceptedQuote(1_000_000n);
    const signature = await safeMessageSignature(clientsA().publicClient, {
      safe,
      digest: quote.quote.signingHash,
      owners: [owners[0]!],
    });
    const res = await swap({ orderId: quote.orderId, quoteId: quote.quoteId, signature });
    expectError(res, 400, 'INVALID_SIGNATURE', 'body.signature');
    const order = await h.http('GET', `/api/v1/orders/${quote.orderId}`, { apiKey: mm.apiKey });
    expectError(order, 404, 'ORDER_NOT_FOUND');
  });

  it('refuses an owner’s plain ECDSA signature for the Safe at body.signature', async () => {
    const quote = await acceptedQuote(1_000_000n);
    const signature = await owners[0]!.signTypedData(quote.typedData);
    const res = await swap({ orderId: quote.orderId, quoteId: quote.quoteId, signature });
    expectError(res, 400, 'INVALID_SIGNATURE', 'body.signature');
  });

  async function safeSignIn(signers: typeof owners) {
    const { nonce } = (await h.http('GET', '/auth/nonce')).body;
    const now = h.clock.now();
    const message = createSiweMessage({
      address: safe,
      chainId: h.registry.chain(h.chainA)!.chainId,
      domain: 'ferry.test',
      nonce,
      uri: 'http://ferry.test',
      version: '1',
      issuedAt: now,
      expirationTime: new Date(now.getTime() + 5 * 60_000),
    });
    const signature = await safeMessageSignature(clientsA().publicClient, {
      safe,
      digest: hashMessage(message),
      owners: signers,
    });
    return h.http('POST', '/auth/verify', { body: { message, signature, address: safe } });
  }

  it('signs a Safe in with SIWE (EIP-1271); with one owner missing it is 401 at body.signature', async () => {
    const refused = await safeSignIn([owners[1]!]);
    expectError(refused, 401, 'UNAUTHORIZED', 'body.signature');

    const res = await safeSignIn(owners);
    expect(res.status).toBe(200);
    expect(res.body.session.address).toBe(safe);
    const own = await h.http('GET', '/api/v1/account', { bearer: res.body.session.token });
    expect(own.status).toBe(200);
  });
});
