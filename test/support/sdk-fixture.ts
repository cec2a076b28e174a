import net from 'node:net';
import { privateKeyToAccount } from 'viem/accounts';
import { expect, vi } from 'vitest';
import { FerryApiError as FerryApiErrorClass } from '../../sdk/src/ferry-error.ts';
import { createFerryClient, type FerryApiError, type FerryClient } from '../../sdk/src/index.ts';
import { ANVIL_KEYS } from '../../src/devnet/devnet.ts';
import { type Harness, startHarness } from './harness.ts';

export const waitFor = <T>(probe: () => T | Promise<T>) =>
  vi.waitFor(probe, { timeout: 15_000, interval: 20 });

/** Awaits a promise that must reject with a FerryApiError and returns the error. */
export async function apiError(promise: Promise<unknown>): Promise<FerryApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FerryApiErrorClass);
  expect(error).toBeInstanceOf(Error);
  return error as FerryApiError;
}

/**
 * A TCP proxy in front of the server, to break connections on purpose: `drop()` cuts every open connection,
 * `refuse` turns new ones away, `stall()` stops forwarding bytes (a dead peer that TCP has not noticed).
 */
export async function startProxy(targetUrl: string) {
  const target = new URL(targetUrl);
  const pairs = new Set<[net.Socket, net.Socket]>();
  let refuse = false;
  let stalled = false;
  const server = net.createServer((client) => {
    if (refuse) return void client.destroy();
    const upstream = net.connect(Number(target.port), target.hostname);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    if (stalled) for (const s of pair) s.pause();
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    get connections() {
      return pairs.size;
    },
    set refuse(value: boolean) {
      refuse = value;
    },
    drop() {
      for (const [a, b] of pairs) {
        a.destroy();
        b.destroy();
      }
      pairs.clear();
    },
    stall(on: boolean) {
      stalled = on;
      for (const pair of pairs) for (const s of pair) on ? s.pause() : s.resume();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const [a, b] of pairs) {
          a.destroy();
          b.destroy();
        }
        server.close(() => resolve());
      }),
  };
}

/** The server the SDK suites talk to, a money mover and an LP with their clients, and a client with no key. */
export interface SdkFixture {
  h: Harness;
  mmAccount: { id: string; apiKey: string };
  lpAccount: { id: string; apiKey: string };
  mm: FerryClient;
  lp: FerryClient;
  anon: FerryClient;
  chainId: number;
}

export async function startSdkFixture(): Promise<SdkFixture> {
  const h = await startHarness({
    rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 },
    streams: {
      maxPerClient: 10,
      heartbeatMs: 15_000,
      replayMaxEvents: 10_000,
      maxBufferBytes: 1 << 20,
      pollMs: 500,
      replayMaxPending: 10_000,
    },
  });
  const mmAccount = await h.createAccount('moneyMover', 'sdk money mover');
  const lpAccount = await h.createAccount(
    'liquidityProvider',
    'sdk lp',
    privateKeyToAccount(ANVIL_KEYS[4]!).address,
  );
  const mm = createFerryClient({ baseUrl: h.baseUrl, apiKey: mmAccount.apiKey });
  const lp = createFerryClient({ baseUrl: h.baseUrl, apiKey: lpAccount.apiKey });
  const anon = createFerryClient({ baseUrl: `${h.baseUrl}/` });
  const chainId = h.registry.chain(h.chainA)!.chainId;
  return { h, mmAccount, lpAccount, mm, lp, anon, chainId };
}

/** A quote request from the harness's offerer, USDC on chain A for USDC on chain B. */
export const sdkRequestInput = (h: Harness, inputAmount = '1000000') => ({
  recipient: h.otherWallet.address,
  offerer: h.offerer.address,
  inputToken: h.usdcA,
  outputToken: h.usdcB,
  inputAmount,
  inputChain: h.chainA,
  outputChain: h.chainB,
});
