import type { LocalAccount } from 'viem/accounts';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, quoteRequestBody } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';

describe('Sign-In with Ethereum (EIP-4361)', () => {
  let h: Harness;
  let chainId: number;
  let lp: { id: string; apiKey: string };

  beforeAll(async () => {
    h = await startHarness();
    chainId = h.registry.chains[0]!.chainId;
    lp = await h.createAccount('liquidityProvider', 'siwe lp');
  });
  afterAll(async () => {
    await h?.close();
  });

  async function nonce(): Promise<string> {
    const res = await h.http('GET', '/auth/nonce');
    expect(res.status).toBe(200);
    return res.body.nonce as string;
  }

  interface MessageOptions {
    nonce?: string;
    domain?: string;
    uri?: string;
    chainId?: number;
    expirationTime?: Date;
    /** The account whose address the message names (defaults to the signer). */
    address?: `0x${string}`;
  }

  /** Builds a real EIP-4361 message, signs it with `signer`, and returns what POST /auth/verify takes. */
  async function signedMessage(signer: LocalAccount, options: MessageOptions = {}) {
    const now = h.clock.now();
    const message = createSiweMessage({
      address: options.address ?? signer.address,
      chainId: options.chainId ?? chainId,
      domain: options.domain ?? 'ferry.test',
      nonce: options.nonce ?? (await nonce()),
      uri: options.uri ?? 'http://ferry.test',
      version: '1',
      issuedAt: now,
      expirationTime: options.expirationTime ?? new Date(now.getTime() + 5 * 60_000),
      statement: 'Sign in to Ferry',
    });
    const signature = await signer.signMessage({ message });
    return { message, signature, address: options.address ?? signer.address };
  }

  async function signIn(signer: LocalAccount, options: MessageOptions = {}) {
    return h.http('POST', '/auth/verify', { body: await signedMessage(signer, options) });
  }

  /** Signs in and returns the session token; fails the test unless the sign-in succeeds. */
  async function session(signer: LocalAccount): Promise<{ token: string; accountId: string }> {
    const res = await signIn(signer);
    expect(res.status).toBe(200);
    return { token: res.body.session.token, accountId: res.body.session.accountId };
  }

  async function ownQuoteRequestIds(token: string): Promise<string[]> {
    const res = await h.http('GET', '/api/v1/quote-requests?timeWindow=86400&pageSize=100', {
      bearer: token,
    });
    expect(res.status).toBe(200);
    // Sorted: rows created in the same clock millisecond have no defined order.
    return res.body.data.map((qr: { id: string }) => qr.id).sort();
  }

  it('GET /auth/nonce returns a fresh alphanumeric nonce each time', async () => {
    const first = await h.http('GET', '/auth/nonce');
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ nonce: expect.stringMatching(/^[a-zA-Z0-9]{8,}$/) });
    const second = await nonce();
    expect(second).not.toBe(first.body.nonce);
  });

  it('POST /auth/verify with a good message opens a session for the signed-in address', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const res = await signIn(wallet);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.session).toMatchObject({
      token: expect.stringMatching(/^\S{20,}$/),
      address: wallet.address,
      expiresAt: new Date(h.clock.now().getTime() + h.config.sessionTtlSeconds * 1000).toISOString(),
    });
    const me = await h.http('GET', '/api/v1/orders', { bearer: res.body.session.token });
    expect(me.status).toBe(200);
    expect(me.body.data.total).toBe(0);
  });

  it('accepts the address in any case and returns it checksummed', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const body = await signedMessage(wallet);
    const res = await h.http('POST', '/auth/verify', {
      body: { ...body, address: wallet.address.toLowerCase() },
    });
    expect(res.status).toBe(200);
    expect(res.body.session.address).toBe(wallet.address);
  });

  it('signing in again with the same wallet acts as the same money-mover account', async () => {
    const first = await session(h.offerer);
    const second = await session(h.offerer);
    expect(second.token).not.toBe(first.token);
    expect(second.accountId).toBe(first.accountId);
    const created = await h.http('POST', '/api/v1/quote-requests', {
      bearer: first.token,
      body: quoteRequestBody(h),
    });
    expect(created.status).toBe(201);
    expect(await ownQuoteRequestIds(second.token)).toContain(created.body.data.quoteId);
  });

  it('a nonce works once only', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const n = await nonce();
    const first = await signIn(wallet, { nonce: n });
    expect(first.status).toBe(200);
    const replay = await signIn(wallet, { nonce: n });
    expectError(replay, 401, 'UNAUTHORIZED', 'body.message');
    // The very same signed body replayed is refused too.
    const body = await signedMessage(wallet);
    expect((await h.http('POST', '/auth/verify', { body })).status).toBe(200);
    expectError(await h.http('POST', '/auth/verify', { body }), 401, 'UNAUTHORIZED', 'body.message');
  });

  it('a nonce the server never issued is refused', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    expectError(await signIn(wallet, { nonce: 'neverissued123' }), 401, 'UNAUTHORIZED', 'body.message');
  });

  it('a wrong domain is refused and does not burn the nonce', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const n = await nonce();
    const res = await signIn(wallet, { nonce: n, domain: 'evil.test', uri: 'http://evil.test' });
    expectError(res, 401, 'UNAUTHORIZED', 'body.message');
    expect(res.body.error).toContain('evil.test');
    expect((await signIn(wallet, { nonce: n })).status).toBe(200);
  });

  it('a chain id the service does not serve is refused', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const unserved = Math.max(...h.registry.chains.map((c) => c.chainId)) + 1000;
    expectError(await signIn(wallet, { chainId: unserved }), 401, 'UNAUTHORIZED', 'body.message');
  });

  it('an expired message (expirationTime before the server clock) is refused', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const n = await nonce();
    const expired = new Date(h.clock.now().getTime() - 1000);
    expectError(
      await signIn(wallet, { nonce: n, expirationTime: expired }),
      401,
      'UNAUTHORIZED',
      'body.message',
    );
    // Exactly at the server's now is expired as well.
    expectError(
      await signIn(wallet, { nonce: n, expirationTime: h.clock.now() }),
      401,
      'UNAUTHORIZED',
      'body.message',
    );
    // The nonce was not consumed by the refusals.
    expect((await signIn(wallet, { nonce: n })).status).toBe(200);
  });

  it('expiry is judged by the server clock, not the wall clock', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const n = await nonce();
    const body = await signedMessage(wallet, {
      nonce: n,
      expirationTime: new Date(h.clock.now().getTime() + 60_000),
    });
    h.clock.advance(61);
    expectError(await h.http('POST', '/auth/verify', { body }), 401, 'UNAUTHORIZED', 'body.message');
  });

  it('a signature by another key is refused at body.signature and does not burn the nonce', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const impostor = privateKeyToAccount(generatePrivateKey());
    const n = await nonce();
    // The message names `wallet`, but `impostor` signs it.
    const forged = await signedMessage(impostor, { nonce: n, address: wallet.address });
    const res = await h.http('POST', '/auth/verify', { body: forged });
    expectError(res, 401, 'UNAUTHORIZED', 'body.signature');
    expect(res.body.details).toHaveLength(1);
    expect((await signIn(wallet, { nonce: n })).status).toBe(200);
  });

  it('a body address other than the message address is refused', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const body = await signedMessage(wallet);
    const res = await h.http('POST', '/auth/verify', { body: { ...body, address: h.otherWallet.address } });
    expectError(res, 401, 'UNAUTHORIZED', 'body.address');
  });

  it('a malformed message is a 400 VALIDATION_ERROR', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const message = 'please let me in';
    const signature = await wallet.signMessage({ message });
    const res = await h.http('POST', '/auth/verify', {
      body: { message, signature, address: wallet.address },
    });
    expectError(res, 400, 'VALIDATION_ERROR', 'body.message');

    const missing = await h.http('POST', '/auth/verify', { body: { signature, address: wallet.address } });
    expectError(missing, 400, 'VALIDATION_ERROR', 'body.message');

    const good = await signedMessage(wallet);
    const badSig = await h.http('POST', '/auth/verify', { body: { ...good, signature: '0x1234' } });
    expectError(badSig, 400, 'VALIDATION_ERROR', 'body.signature');
  });

  it('the session acts as a money mover: own offerer 201, another offerer 403 writing nothing', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const { token } = await session(h.offerer);
    const before = await ownQuoteRequestIds(token);

    const own = await h.http('POST', '/api/v1/quote-requests', {
      bearer: token,
      body: quoteRequestBody(h, { offerer: h.offerer.address.toLowerCase() }),
    });
    expect(own.status).toBe(201);
    expect(own.body.data.quoteRequest.offerer).toBe(h.offerer.address);

    const other = await h.http('POST', '/api/v1/quote-requests', {
      bearer: token,
      body: quoteRequestBody(h, { offerer: h.otherWallet.address }),
    });
    expectError(other, 403, 'FORBIDDEN', 'body.offerer');
    expect(await ownQuoteRequestIds(token)).toEqual([own.body.data.quoteId, ...before].sort());

    // An unfunded wallet signs in fine but cannot ask for a quote it could not pay.
    const poor = await session(wallet);
    const unfunded = await h.http('POST', '/api/v1/quote-requests', {
      bearer: poor.token,
      body: quoteRequestBody(h, { offerer: wallet.address }),
    });
    expectError(unfunded, 422, 'INSUFFICIENT_BALANCE', 'body.inputAmount');
    expect(await ownQuoteRequestIds(poor.token)).toEqual([]);
  });

  it('a session user runs the whole flow: request, LP quote, accept, sign, swap, read the order', async () => {
    const { token, accountId } = await session(h.offerer);
    const created = await h.http('POST', '/api/v1/quote-requests', {
      bearer: token,
      body: quoteRequestBody(h),
    });
    expect(created.status).toBe(201);
    const requestId = created.body.data.quoteId as string;

    const quoted = await h.http('POST', '/api/v1/quotes', {
      apiKey: lp.apiKey,
      body: { quoteRequestId: requestId, outputAmount: '990000' },
    });
    expect(quoted.status).toBe(201);
    const { quoteId, orderId, typedData } = quoted.body.data;

    const seen = await h.http('GET', `/api/v1/quotes?quoteRequestId=${requestId}`, { bearer: token });
    expect(seen.status).toBe(200);
    expect(seen.body.data.quotes.map((q: { id: string }) => q.id)).toEqual([quoteId]);

    const accepted = await h.http('POST', `/api/v1/quotes/${quoteId}/accept`, {
      bearer: token,
      body: { quoteId },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.acceptedQuote.status).toBe('accepted');

    const signature = await h.offerer.signTypedData(typedData);
    const swap = await h.http('POST', '/api/v1/swaps', {
      bearer: token,
      body: { orderId, quoteId, signature },
    });
    expect(swap.status).toBe(201);
    expect(swap.body.data.orderId).toBe(orderId);

    const order = await h.http('GET', `/api/v1/orders/${orderId}`, { bearer: token });
    expect(order.status).toBe(200);
    expect(order.body.data).toMatchObject({
      orderId,
      quoteId,
      moneyMoverAccountId: accountId,
      liquidityProviderAccountId: lp.id,
    });

    const listed = await h.http('GET', '/api/v1/orders', { bearer: token });
    expect(listed.status).toBe(200);
    expect(listed.body.data.orders.map((o: { orderId: string }) => o.orderId)).toContain(orderId);

    // Another wallet's session does not see it.
    const stranger = await session(privateKeyToAccount(generatePrivateKey()));
    expectError(
      await h.http('GET', `/api/v1/orders/${orderId}`, { bearer: stranger.token }),
      404,
      'ORDER_NOT_FOUND',
      'params.id',
    );
  });

  it('a session may not call liquidity-provider endpoints', async () => {
    const { token } = await session(h.offerer);
    const created = await h.http('POST', '/api/v1/quote-requests', {
      bearer: token,
      body: quoteRequestBody(h),
    });
    expect(created.status).toBe(201);
    const requestId = created.body.data.quoteId as string;
    const res = await h.http('POST', '/api/v1/quotes', {
      bearer: token,
      body: { quoteRequestId: requestId, outputAmount: '990000' },
    });
    expectError(res, 403, 'FORBIDDEN', 'headers');
    const quotes = await h.http('GET', `/api/v1/quotes?quoteRequestId=${requestId}`, { bearer: token });
    expect(quotes.status).toBe(200);
    expect(quotes.body.data.total).toBe(0);
  });

  it('POST /auth/logout ends the session; the token is then refused', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const { token } = await session(wallet);
    const other = await session(wallet);
    expect((await h.http('GET', '/api/v1/orders', { bearer: token })).status).toBe(200);

    const out = await h.http('POST', '/auth/logout', { bearer: token });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ success: true });

    expectError(
      await h.http('GET', '/api/v1/orders', { bearer: token }),
      401,
      'UNAUTHORIZED',
      'headers.authorization',
    );
    expectError(
      await h.http('POST', '/auth/logout', { bearer: token }),
      401,
      'UNAUTHORIZED',
      'headers.authorization',
    );
    // Only that session ended.
    expect((await h.http('GET', '/api/v1/orders', { bearer: other.token })).status).toBe(200);
  });

  it('logout needs a session', async () => {
    expectError(await h.http('POST', '/auth/logout'), 401, 'UNAUTHORIZED', 'headers.x-api-key');
  });

  it('unknown or malformed bearer tokens are refused', async () => {
    expectError(
      await h.http('GET', '/api/v1/orders', { bearer: 'fsn_not-a-real-token' }),
      401,
      'UNAUTHORIZED',
      'headers.authorization',
    );
    expectError(
      await h.http('GET', '/api/v1/orders', { headers: { authorization: 'Basic dXNlcjpwYXNz' } }),
      401,
      'UNAUTHORIZED',
      'headers.authorization',
    );
  });

  // These move the clock far ahead, so they run last.
  it('a nonce expires after 10 minutes', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const n = await nonce();
    h.clock.advance(601);
    expectError(await signIn(wallet, { nonce: n }), 401, 'UNAUTHORIZED', 'body.message');
  });

  it('a session expires at its expiresAt on the server clock', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const res = await signIn(wallet);
    expect(res.status).toBe(200);
    const { token, expiresAt } = res.body.session;
    const left = (new Date(expiresAt).getTime() - h.clock.now().getTime()) / 1000;
    expect(left).toBe(h.config.sessionTtlSeconds);
    h.clock.advance(left - 1);
    expect((await h.http('GET', '/api/v1/orders', { bearer: token })).status).toBe(200);
    h.clock.advance(1);
    expectError(
      await h.http('GET', '/api/v1/orders', { bearer: token }),
      401,
      'UNAUTHORIZED',
      'headers.authorization',
    );
  });
});
