import http from 'node:http';
import https from 'node:https';
import { WEBHOOK_TIMEOUT_MS } from '../domain/webhook-rules.ts';
import { deliveryUrlRefusal, guardedLookup, WebhookAddressRefusedError } from './webhook-address-guard.ts';

export type SendResult =
  | { readonly kind: 'answered'; readonly statusCode: number }
  | { readonly kind: 'failed'; readonly error: string }
  | { readonly kind: 'refused'; readonly error: string }
  | { readonly kind: 'aborted' };

/** How much of a receiver's answer is read (and thrown away) before the socket is let go. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs one signed delivery. The URL is checked again as at registration (scheme, IP literal), the host is resolved and checked by guardedLookup, and the socket connects to the
 * checked address; TLS still verifies the certificate against the URL's host name. The receiver has
 * WEBHOOK_TIMEOUT_MS for its whole answer. Redirects are not followed (a 3xx is not a 2xx: the attempt failed).
 */
export function sendWebhook(options: {
  url: string;
  headers: Readonly<Record<string, string>>;
  body: string;
  allowPrivate: boolean;
  signal: AbortSignal;
}): Promise<SendResult> {
  const url = new URL(options.url);
  // An IP literal never reaches guardedLookup, and the setting may have changed since the URL was registered.
  const refusal = deliveryUrlRefusal(url, options.allowPrivate);
  if (refusal) return Promise.resolve({ kind: 'refused', error: refusal.message });
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const settle = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: {
          ...options.headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(options.body)),
          'user-agent': 'Ferry-Webhooks',
        },
        lookup: guardedLookup(options.allowPrivate) as never,
        // One connection per attempt: a pooled socket would skip the address check of the next attempt.
        agent: false,
      },
      (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) response.destroy();
        });
        const done = () => settle({ kind: 'answered', statusCode: response.statusCode ?? 0 });
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      settle({ kind: 'failed', error: `no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s` });
    }, WEBHOOK_TIMEOUT_MS);
    const onAbort = () => {
      request.destroy();
      settle({ kind: 'aborted' });
    };
    options.signal.addEventListener('abort', onAbort);
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof WebhookAddressRefusedError) settle({ kind: 'refused', error: error.message });
      else settle({ kind: 'failed', error: describeNetworkError(error) });
    });
    request.end(options.body);
  });
}

/** The network error in one line, without the URL (its path may carry a receiver's token) or the address. */
function describeNetworkError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'ENOTFOUND':
      return 'host not found';
    case 'EAI_AGAIN':
      return 'host name lookup failed (temporary)';
    case 'ETIMEDOUT':
      return 'connection timed out';
    default:
      // A socket error's message names the address it connected to: the code alone (what a name resolved to stays
      // Ferry's).
      if (error.syscall) return `${error.syscall} failed: ${error.code ?? 'error'}`;
      return error.code ? `${error.code}: ${error.message}` : error.message;
  }
}
