import { createPublicClient, createWalletClient, type Hex, http, parseGwei } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainById } from '../src/chains/chain-by-id.ts';
import { loadArtifact } from '../src/chains/contract-artifacts.ts';
import { ANVIL_KEYS, DEVNET_RELAYER_KEY } from '../src/devnet/devnet.ts';
import { anvilKnobs } from './support/anvil-knobs.ts';
import { transferToken } from './support/chain-actors.ts';
import { acceptQuote, createQuote, createQuoteRequest, expectError, WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';

const lpWallet = privateKeyToAccount(ANVIL_KEYS[4]);
const relayer = privateKeyToAccount(DEVNET_RELAYER_KEY);
const gated = loadArtifact('GasPriceGatedOfferer');
/** Any bytes: the offerer contract judges them, and it takes whatever it is given while ungated. */
const SIGNATURE = `0x${'11'.repeat(65)}` as Hex;

/**
 * An outsider must not make the relayer burn gas. The offerer is a contract (GasPriceGatedOfferer) whose
 * isValidSignature answers the magic value only to a call priced at zero while it is gated, and whose owner (the
 * attacker, a devnet wallet) can slip a switch of its gate in front of the relayer's deposit. Real devnets, the real
 * escrow, Ferry's API and worker in process.
 */
describe('an offerer contract that makes the relayer’s transactions revert', () => {
  let h: Harness;
  let mm: { id: string; apiKey: string };
  let lp: { id: string; apiKey: string };
  let offerer: Hex;
  const attacker = () => privateKeyToAccount(ANVIL_KEYS[3]!);
  /** The attacker's second account: ungates the offerer from another sender, so a block orders it last. */
  const accomplice = privateKeyToAccount(generatePrivateKey());

  const devnetA = () => h.devnets.chains.find((c) => c.name === h.chainA)!;
  const clientsA = () => {
    const chain = chainById(devnetA().chainId, devnetA().rpcUrl);
    return {
      publicClient: createPublicClient({ chain, transport: http() }),
      wallet: createWalletClient({ account: attacker(), chain, transport: http() }),
      accompliceWallet: createWalletClient({ account: accomplice, chain, transport: http() }),
    };
  };
  const escrowA = () => h.registry.chain(h.chainA)!.contracts.escrow;

  /**
   * The attacker switches its offerer's gate. `front` prices it above any deposit of the relayer's (mined ahead of
   * it), `back` below (mined after it: no tip, a fee cap just over the base fee; anvil orders by the fee cap).
   */
  async function setGated(on: boolean, place?: 'front' | 'back'): Promise<Hex> {
    const baseFee = async () =>
      (await clientsA().publicClient.getBlock({ blockTag: 'latest' })).baseFeePerGas ?? 0n;
    const fees =
      place === 'front'
        ? { maxPriorityFeePerGas: parseGwei('100'), maxFeePerGas: parseGwei('300') }
        : place === 'back'
          ? { maxPriorityFeePerGas: 0n, maxFeePerGas: (await baseFee()) * 2n + 1n }
          : {};
    const { wallet, accompliceWallet } = clientsA();
    return (place === 'back' ? accompliceWallet : wallet).writeContract({
      address: offerer,
      abi: gated.abi,
      functionName: 'setGated',
      args: [on],
      ...fees,
    });
  }

  /**
   * One block as the attacker shapes it: its offerer gated ahead of whatever the relayer sent and ungated after,
   * so every state a simulation sees is ungated and every deposit in the block reverts.
   */
  async function trappedBlock(knobs: ReturnType<typeof anvilKnobs>): Promise<void> {
    await setGated(true, 'front');
    await setGated(false, 'back');
    await knobs.mine();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  beforeAll(async () => {
    h = await startHarness({
      worker: WORKER_ON,
      rateLimits: { apiKey: 100_000, session: 100_000, ip: 100_000 },
      relayerReverts: { limit: 2, windowSeconds: 3600 },
    });
    mm = await h.createAccount('moneyMover');
    lp = await h.createAccount('liquidityProvider', 'lp', lpWallet.address);
    const { publicClient, wallet } = clientsA();
    await anvilKnobs(devnetA().rpcUrl).setBalance(accomplice.address, 10n ** 20n);
    const deployed = await wallet.deployContract({
      abi: gated.abi,
      bytecode: gated.bytecode,
      args: [accomplice.address],
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash: deployed });
    offerer = receipt.contractAddress!;
    await transferToken(h, h.chainA, h.usdcA, h.offerer, offerer, 10_000_000n);
    const approved = await wallet.writeContract({
      address: offerer,
      abi: gated.abi,
      functionName: 'approve',
      args: [h.usdcA, escrowA(), 10_000_000n],
    });
    await publicClient.waitForTransactionReceipt({ hash: approved });
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  async function acceptedQuote(apiKey: string, input: bigint) {
    const requestId = await createQuoteRequest(h, apiKey, { offerer, inputAmount: input.toString() });
    const quote = await createQuote(h, lp.apiKey, requestId, (input - 10_000n).toString());
    await acceptQuote(h, apiKey, quote.quoteId);
    return quote;
  }

  const swap = (apiKey: string, quote: { orderId: string; quoteId: string }) =>
    h.http('POST', '/api/v1/swaps', {
      apiKey,
      body: { orderId: quote.orderId, quoteId: quote.quoteId, signature: SIGNATURE },
    });

  const order = async (orderId: string) =>
    (await h.http('GET', `/api/v1/orders/${orderId}`, { apiKey: mm.apiKey })).body.data;

  const relayerNonce = () =>
    clientsA().publicClient.getTransactionCount({ address: relayer.address, blockTag: 'latest' });

  it('the API asks the offerer as a priced transaction would: a gas-price-gated signature is 400 INVALID_SIGNATURE', async () => {
    const { publicClient } = clientsA();
    await publicClient.waitForTransactionReceipt({ hash: await setGated(true) });
    const quote = await acceptedQuote(mm.apiKey, 1_000_000n);
    const res = await swap(mm.apiKey, quote);
    expectError(res, 400, 'INVALID_SIGNATURE', 'body.signature');
    await publicClient.waitForTransactionReceipt({ hash: await setGated(false) });
  });

  it('fails the order after two deposits that reverted after passing simulation, sends nothing more, and throttles the money mover', async () => {
    const quote = await acceptedQuote(mm.apiKey, 2_000_000n);
    const knobs = anvilKnobs(devnetA().rpcUrl);
    const before = await relayerNonce();
    // Blocks only when the attacker mines them, each shaped by it around the relayer's deposit.
    await knobs.blockTime(0);
    let status = 'created';
    try {
      expect((await swap(mm.apiKey, quote)).status).toBe(201);
      const deadline = Date.now() + 90_000;
      // Under the bound two reverted deposits end it; today's worker deposits again after every one.
      while (status !== 'failed' && (await relayerNonce()) - before < 4 && Date.now() < deadline) {
        await trappedBlock(knobs);
        status = (await order(quote.orderId)).status;
      }
      const sent = await relayerNonce();
      // Nothing more goes out for it, however many blocks follow.
      for (let i = 0; i < 10; i++) await trappedBlock(knobs);
      expect(await relayerNonce()).toBe(sent);
    } finally {
      await knobs.instant();
    }
    const failed = await order(quote.orderId);
    expect(failed.status).toBe('failed');
    expect(failed.failureReason).toMatch(/^RELAYER_REVERTS: 2 deposit transactions reverted on chain/);
    expect((await relayerNonce()) - before).toBe(2);

    // The money mover whose orders made the relayer's transactions revert is refused new swaps.
    const next = await acceptedQuote(mm.apiKey, 1_000_000n);
    const refused = await swap(mm.apiKey, next);
    expectError(refused, 429, 'RATE_LIMITED', 'account');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3000);
    expect((await h.http('GET', `/api/v1/orders/${next.orderId}`, { apiKey: mm.apiKey })).status).toBe(404);

    // Another money mover is not.
    const other = await h.createAccount('moneyMover', 'other');
    const theirs = await acceptedQuote(other.apiKey, 1_000_000n);
    expect((await swap(other.apiKey, theirs)).status).toBe(201);
  }, 150_000);
});
