/**
 * Verifying Ferry's webhook deliveries (Standard Webhooks): `webhook-signature` is `v1,` + base64 HMAC-SHA256 of
 * `webhook-id.webhook-timestamp.body` under the base64-decoded part of the `whsec_…` secret. Web Crypto only, so it
 * runs in Node 20+, browsers, Deno and edge runtimes alike; its HMAC verify compares in constant time.
 */

export type WebhookVerificationReason = 'missing-header' | 'bad-secret' | 'timestamp' | 'signature';

/** A delivery that must not be trusted: `reason` says which check failed. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

/** Headers as a plain object (any case, as Node's `request.headers`) or a Fetch `Headers`. */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, in seconds (default 300: replays older than 5 minutes fail). */
  toleranceSeconds?: number;
  /** The time to check against (default: now). */
  now?: Date;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : (value as string | undefined);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Checks a delivery's signature and timestamp and returns its parsed event (`{id, type, occurredAt, data}`); throws a
 * WebhookVerificationError otherwise. Pass the body exactly as received (the raw text, before any JSON parsing).
 */
export async function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  body: string,
  options: VerifyWebhookOptions = {},
): Promise<unknown> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError(
      'missing-header',
      'webhook-id, webhook-timestamp and webhook-signature are required',
    );
  }
  const key = fromBase64(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  if (!key || key.length === 0)
    throw new WebhookVerificationError('bad-secret', 'the secret is not whsec_ + base64');
  const sent = Number(timestamp);
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (!/^\d+$/.test(timestamp) || Math.abs(now - sent) > tolerance) {
    throw new WebhookVerificationError('timestamp', `webhook-timestamp is more than ${tolerance} s from now`);
  }
  const hmac = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'verify',
  ]);
  const content = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  // A sender rotating its secret may send several signatures, space-separated: one valid v1 is enough.
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',', 2);
    const signature = version === 'v1' && value !== undefined ? fromBase64(value) : null;
    if (signature && (await crypto.subtle.verify('HMAC', hmac, signature, content))) {
      return JSON.parse(body) as unknown;
    }
  }
  throw new WebhookVerificationError('signature', 'no webhook-signature matches the body and the secret');
}
