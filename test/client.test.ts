import { createWalletClient, http, recoverTypedDataAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFerryClient,
  type FerryApiError,
  type FerryClient,
  isFerryApiError,
  signInWithEthereum,
  signQuote,
} from '../sdk/src/index.ts';
import type { Harness } from './support/harness.ts';
import { apiError, sdkRequestInput, startSdkFixture } from './support/sdk-fixture.ts';

/** The SDK's request methods, errors and sign-in against a started server (its streams: client-streams.test.ts). */
describe('typed client SDK (@ferry/client) against a running Ferry', () => {
  let h: Harness;
  let mm: FerryClient;
  let lp: FerryClient;
  let anon: FerryClient;
  let chainId: number;

  const requestInput = (inputAmount = '1000000') => sdkRequestInput(h, inputAmount);

  beforeAll(async () => {
    ({ h, mm, lp, anon, chainId } = await startSdkFixture());
  });
  afterAll(async () => {
    await h?.close();
  });

  it('runs a whole swap through every endpoint method, signing the typed data with signQuote', async () => {
    expect(await anon.health()).toEqual({ status: 'ok' });
    const chains = await anon.public.chains();
    expect(chains.status).toBe('success');
    expect(chains.data.chains.map((c) => c.name)).toEqual([h.chainA, h.chainB]);
    expect(chains.data.chains[0]!.tokens.find((t) => t.symbol === 'USDC')?.address).toBe(h.usdcA);

    const created = await mm.quoteRequests.create(requestInput('2500000'));
    expect(created.quoteId).toBe(created.quoteRequestId);
    expect(created.quoteRequest).toMatchObject({
      id: created.quoteId,
      status: 'open',
      inputAmount: '2500000',
    });
    expect(await mm.quoteRequests.get(created.quoteId)).toEqual(created);
    const page = await mm.quoteRequests.list({ pageSize: 100 });
    expect(Object.keys(page).sort()).toEqual(['data', 'page', 'pageSize', 'total', 'totalPages']);
    expect(page.data.map((qr) => qr.id)).toContain(created.quoteId);
    expect((await lp.quoteRequests.list({ status: 'open' })).data.map((qr) => qr.id)).toContain(
      created.quoteId,
    );

    const envelope = await lp.quotes.create({ quoteRequestId: created.quoteId, outputAmount: '2490000' });
    expect(envelope.quote).toMatchObject({
      quoteRequestId: created.quoteId,
      outputAmount: '2490000',
      status: 'active',
    });
    expect(await lp.quotes.get(envelope.quoteId)).toEqual(envelope);
    const mine = await mm.quotes.list({ quoteRequestId: created.quoteId });
    expect(mine.quotes.map((q) => q.id)).toEqual([envelope.quoteId]);
    expect(mine.total).toBe(1);
    expect((await lp.quotes.list()).quotes.map((q) => q.id)).toContain(envelope.quoteId);

    const accepted = await mm.quotes.accept(envelope.quoteId);
    expect(accepted.acceptedQuote).toMatchObject({ id: envelope.quoteId, status: 'accepted' });
    expect(accepted.declinedCount).toBe(0);
    expect(accepted.quoteRequest.status).toBe('accepted');

    const fetched = await mm.quotes.get(envelope.quoteId);
    const signature = await signQuote(h.offerer, fetched.typedData);
    expect(signature).toBe(await h.offerer.signTypedData(fetched.typedData as any));
    expect(await recoverTypedDataAddress({ ...(fetched.typedData as any), signature })).toBe(
      h.offerer.address,
    );
    // A wallet client signs the same bytes.
    const wallet = createWalletClient({
      account: h.offerer,
      transport: http(h.registry.chain(h.chainA)!.rpcUrl),
    });
    expect(await signQuote(wallet, fetched.typedData)).toBe(signature);

    const swap = await mm.swaps.execute({ orderId: fetched.orderId, quoteId: fetched.quoteId, signature });
    expect(swap.orderId).toBe(fetched.orderId);
    expect(swap.blockchainOrderId).toBe(fetched.quote.signingHash);
    expect(swap.order.status).toBe('created');
    // Same request again: the same order, not a second one.
    expect(
      (await mm.swaps.execute({ orderId: fetched.orderId, quoteId: fetched.quoteId, signature })).orderId,
    ).toBe(swap.orderId);

    const order = await mm.orders.get(swap.orderId);
    expect(order).toMatchObject({ orderId: swap.orderId, status: 'created', quoteId: envelope.quoteId });
    const orders = await mm.orders.list({ includeQuote: true });
    expect(orders.orders.map((o) => o.orderId)).toEqual([swap.orderId]);
    expect(orders.orders[0]!.quote?.id).toBe(envelope.quoteId);
    expect(orders).toMatchObject({ total: 1, page: 1, totalPages: 1 });
    expect((await lp.orders.list({ status: 'created' })).orders.map((o) => o.orderId)).toEqual([
      swap.orderId,
    ]);
    expect((await mm.orders.list({ status: 'completed' })).orders).toEqual([]);

    const publicOrders = await anon.public.orders({ address: h.offerer.address.toLowerCase() });
    expect(publicOrders).toMatchObject({ status: 'success', total: 1, page: 1 });
    expect(publicOrders.data.orders.map((o) => o.id)).toEqual([swap.orderId]);
    const detail = await anon.public.order(swap.orderId);
    expect(detail.data.order).toMatchObject({ id: swap.orderId, status: 'created', source: 'order' });
    expect(detail.data.events.map((e) => e.type)).toEqual(['order.created']);
    const found = await anon.public.orders({ q: detail.data.order.blockchainOrderId });
    expect(found.data.orders.map((o) => o.id)).toEqual([swap.orderId]);
    const stats = await anon.public.stats();
    expect(stats.data.outcomes.find((o) => o.status === 'created')?.orders).toBe(1);
    const recent = await anon.public.recentQuotes({ limit: 5 });
    expect(recent.data.quotes.map((q) => q.id)).toContain(envelope.quoteId);
  });

  it('sends Idempotency-Key: the same key and body replays, another body is 409 IDEMPOTENCY_KEY_REUSED', async () => {
    const key = `sdk-${Date.now()}`;
    const first = await mm.quoteRequests.create(requestInput('1100000'), { idempotencyKey: key });
    const again = await mm.quoteRequests.create(requestInput('1100000'), { idempotencyKey: key });
    expect(again.quoteId).toBe(first.quoteId);
    const reused = await apiError(mm.quoteRequests.create(requestInput('1200000'), { idempotencyKey: key }));
    expect(reused).toMatchObject({ status: 409, code: 'IDEMPOTENCY_KEY_REUSED' });
    const amounts = (await mm.quoteRequests.list({ pageSize: 100 })).data.map((qr) => qr.inputAmount);
    expect(amounts.filter((a) => a === '1100000')).toHaveLength(1);
    expect(amounts).not.toContain('1200000');
  });

  it('throws FerryApiError with the status, code, detail paths and nothing written', async () => {
    const missing = await apiError(mm.orders.get('ord_does_not_exist'));
    expect(missing).toMatchObject({ name: 'FerryApiError', status: 404, code: 'ORDER_NOT_FOUND' });
    expect(missing.message).toMatch(/^GET \/api\/v1\/orders\/ord_does_not_exist: 404 /);
    expect(isFerryApiError(missing, 'ORDER_NOT_FOUND')).toBe(true);
    expect(isFerryApiError(missing, 'QUOTE_NOT_FOUND')).toBe(false);
    expect(missing.retryable).toBe(false);

    const before = (await mm.quoteRequests.list({ pageSize: 100 })).total;
    const invalid = await apiError(mm.quoteRequests.create(requestInput('1.5')));
    expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(invalid.details.map((d) => d.path)).toEqual(['body.inputAmount']);
    const dust = await apiError(mm.quoteRequests.create(requestInput('999999')));
    expect(dust).toMatchObject({ status: 400, code: 'AMOUNT_TOO_SMALL' });
    expect(isFerryApiError(dust, 'AMOUNT_TOO_SMALL')).toBe(true);
    expect(dust.details.map((d) => d.path)).toEqual(['body.inputAmount']);
    const badChain = await apiError(mm.quoteRequests.create({ ...requestInput(), outputChain: 'nowhere' }));
    expect(badChain).toMatchObject({ status: 400, code: 'INVALID_CHAIN' });
    expect(badChain.details.map((d) => d.path)).toEqual(['body.outputChain']);
    expect((await mm.quoteRequests.list({ pageSize: 100 })).total).toBe(before);

    const pageSize = await apiError(mm.orders.list({ pageSize: 1000 }));
    expect(pageSize).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(pageSize.details.map((d) => d.path)).toEqual(['query.pageSize']);

    const forbidden = await apiError(lp.quoteRequests.create(requestInput()));
    expect(forbidden).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect((await mm.quoteRequests.list({ pageSize: 100 })).total).toBe(before);

    const wrongKey = createFerryClient({ baseUrl: h.baseUrl, apiKey: 'fk_not_a_real_key' });
    expect(await apiError(wrongKey.orders.list())).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(await apiError(anon.orders.list())).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(await apiError(anon.public.order('ord_missing'))).toMatchObject({
      status: 404,
      code: 'ORDER_NOT_FOUND',
    });
    const notFoundQuote = await apiError(mm.quotes.accept('q_missing'));
    expect(notFoundQuote).toMatchObject({ status: 404, code: 'QUOTE_NOT_FOUND' });

    const offline = createFerryClient({ baseUrl: 'http://127.0.0.1:1' });
    const network = await apiError(offline.health());
    expect(network).toMatchObject({ status: 0, code: 'NETWORK_ERROR', retryable: true });
  });

  it('signs in with Ethereum (local account and wallet client), uses the session, and logs out', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const session = await signInWithEthereum({
      client: mm,
      account,
      domain: 'ferry.test',
      uri: 'http://ferry.test',
      chainId,
    });
    expect(session.session).toMatchObject({ address: account.address, token: expect.any(String) });
    expect(session.options.apiKey).toBeUndefined();
    // The session is its own money mover: none of the API key account's orders.
    expect(await session.orders.list()).toMatchObject({ orders: [], total: 0 });
    const forOther = await apiError(session.quoteRequests.create(requestInput()));
    expect(forOther.status).toBe(403);
    expect(await session.auth.logout()).toEqual({ success: true });
    const ended = await apiError(session.orders.list());
    expect(ended).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });

    const wallet = createWalletClient({
      account: privateKeyToAccount(generatePrivateKey()),
      transport: http(h.registry.chain(h.chainA)!.rpcUrl),
    });
    const viaWallet = await signInWithEthereum({
      client: anon,
      account: wallet,
      domain: 'ferry.test',
      uri: 'http://ferry.test',
      chainId,
    });
    expect(viaWallet.session?.address).toBe(wallet.account.address);
    expect((await viaWallet.quoteRequests.list()).data).toEqual([]);

    const wrongDomain = await apiError(
      signInWithEthereum({ client: anon, account, domain: 'evil.test', uri: 'http://evil.test', chainId }),
    );
    expect(wrongDomain).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(wrongDomain.details.map((d) => d.path)).toContain('body.message');
  });

  it('reports RATE_LIMITED with retryAfter from Retry-After', async () => {
    const limited = await signInWithEthereum({
      client: anon,
      account: privateKeyToAccount(generatePrivateKey()),
      domain: 'ferry.test',
      uri: 'http://ferry.test',
      chainId,
    });
    let error: FerryApiError | null = null;
    for (let i = 0; i < 70 && !error; i++) {
      error = await limited.orders.list().then(
        () => null,
        (e: FerryApiError) => e,
      );
    }
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryable: true });
    expect(error!.retryAfter).toBeGreaterThan(0);
  });
});
