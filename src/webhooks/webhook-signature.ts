import { createHmac, randomBytes } from 'node:crypto';
import { signedContent } from '../domain/webhook-rules.ts';

const SECRET_PREFIX = 'whsec_';

/** A new signing secret in Standard Webhooks' form: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** `webhook-signature`'s value: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` under the decoded secret. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const mac = createHmac('sha256', key)
    .update(signedContent(id, timestampSeconds, body))
    .digest('base64');
  return `v1,${mac}`;
}
