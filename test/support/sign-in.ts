import type { LocalAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import type { Harness } from './harness.ts';

/** A real EIP-4361 sign-in against `baseUrl` (the harness's domain, ferry.test): nonce, signed message, verify. */
export async function signInAt(
  h: Harness,
  baseUrl: string,
  wallet: LocalAccount,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers; request: Record<string, unknown> }> {
  const nonce = await fetch(`${baseUrl}/auth/nonce`, { headers });
  const { nonce: value } = (await nonce.json()) as { nonce: string };
  const now = h.clock.now();
  const message = createSiweMessage({
    address: wallet.address,
    chainId: h.registry.chains[0]!.chainId,
    domain: 'ferry.test',
    nonce: value,
    uri: 'http://ferry.test',
    version: '1',
    issuedAt: now,
    expirationTime: new Date(now.getTime() + 5 * 60_000),
  });
  const request = { message, signature: await wallet.signMessage({ message }), address: wallet.address };
  const res = await fetch(`${baseUrl}/auth/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(request),
  });
  return { status: res.status, body: await res.json(), headers: res.headers, request };
}
