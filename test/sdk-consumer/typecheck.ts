// Type-checked by test/sdk-package.test.ts in an empty project with only `@ferry/client` and `viem` installed,
// under `module: nodenext` and under `moduleResolution: bundler` + `lib: DOM`.
import {
  createFerryClient,
  type FerryEvent,
  isFerryApiError,
  type Order,
  signQuote,
  subscribeEvents,
  subscribeWs,
} from '@ferry/client';
import { createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

const account = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b69690d');

export async function swap(baseUrl: string, apiKey: string, quoteId: string): Promise<Order['status']> {
  const ferry = createFerryClient({ baseUrl, apiKey });
  await ferry.quotes.accept(quoteId);
  const envelope = await ferry.quotes.get(quoteId);
  // A local account and a wallet client both sign: one copy of viem's types, so both are assignable.
  const signature: `0x${string}` = await signQuote(account, envelope.typedData);
  const wallet = createWalletClient({ account, transport: http('http://127.0.0.1:8545') });
  await signQuote(wallet, envelope.typedData);
  const result = await ferry.swaps.execute({ orderId: envelope.orderId, quoteId, signature });
  return result.order.status;
}

export function follow(baseUrl: string, onEvent: (event: FerryEvent) => void): () => void {
  const sse = subscribeEvents({ baseUrl, onEvent });
  const ws = subscribeWs({ baseUrl, channels: ['public'], onEvent });
  return () => {
    sse.close();
    ws.close();
  };
}

export const isApiError = (error: unknown): boolean => isFerryApiError(error) && error.status >= 400;
