import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, exampleRegistry } from '../scripts/openapi-document.ts';
import { createApp } from '../src/app.ts';
import { ConfigError, loadConfig } from '../src/config/config.ts';
import { SETTINGS } from '../src/config/settings.ts';

/** Every limit is a setting: parsed once into the config, refused at start when invalid, quoted from there. */
const LIMITS = {
  BODY_LIMIT_BYTES: '2048',
  HEADER_LIMIT_BYTES: '4096',
  STREAM_MAX_BUFFER_BYTES: '2097152',
  STREAM_REPLAY_MAX_PENDING: '500',
  WS_MESSAGES_PER_SECOND: '7',
  WS_MESSAGE_BURST: '9',
  WS_MAX_MESSAGE_BYTES: '1024',
  IDEMPOTENCY_TTL_SECONDS: '7200',
  SIWE_NONCE_TTL_SECONDS: '300',
  STREAM_LIMIT: '4',
  STREAM_REPLAY_MAX_EVENTS: '250',
  STREAM_HEARTBEAT_MS: '5000',
  RATE_LIMIT_API_KEY: '11',
  RATE_LIMIT_SESSION: '12',
  RATE_LIMIT_IP: '13',
  RATE_LIMIT_SIGN_IN: '14',
  RATE_LIMIT_SIGN_IN_ADDRESS: '15',
};

describe('limit settings', () => {
  it('keep the documented defaults', () => {
    const config = loadConfig({});
    expect(config.bodyLimitBytes).toBe(64 * 1024);
    expect(config.headerLimitBytes).toBe(16 * 1024);
    expect(config.streams.maxBufferBytes).toBe(1024 * 1024);
    expect(config.streams.replayMaxPending).toBe(10_000);
    expect(config.webSocket).toEqual({ messagesPerSecond: 20, messageBurst: 50, maxMessageBytes: 16 * 1024 });
    expect(config.idempotencyTtlSeconds).toBe(86_400);
    expect(config.siweNonceTtlSeconds).toBe(600);
  });

  it('are read from the environment', () => {
    const config = loadConfig(LIMITS);
    expect(config.bodyLimitBytes).toBe(2048);
    expect(config.headerLimitBytes).toBe(4096);
    expect(config.streams.maxBufferBytes).toBe(2_097_152);
    expect(config.streams.replayMaxPending).toBe(500);
    expect(config.webSocket).toEqual({ messagesPerSecond: 7, messageBurst: 9, maxMessageBytes: 1024 });
    expect(config.idempotencyTtlSeconds).toBe(7200);
    expect(config.siweNonceTtlSeconds).toBe(300);
  });

  it('refuse an invalid value with one line naming the variable', () => {
    for (const name of Object.keys(LIMITS)) {
      let error: unknown;
      try {
        loadConfig({ [name]: '0.5' });
      } catch (e) {
        error = e;
      }
      expect(error, name).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems;
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(new RegExp(`^${name} must be an integer from \\d+ to \\d+, got "0.5"$`));
    }
  });

  it('are each documented in docs/configuration.md, a number with its default', () => {
    const doc = fs.readFileSync(path.join(import.meta.dirname, '..', 'docs', 'configuration.md'), 'utf8');
    const problems = Object.entries(SETTINGS).flatMap(([name, setting]) => {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${name}\``));
      if (!row) return [`${name} has no row`];
      const shown = row.split('|')[2]?.trim();
      return /^\d+$/.test(setting.shown) && shown !== `\`${setting.shown}\``
        ? [`${name}: default ${shown}, the setting's is ${setting.shown}`]
        : [];
    });
    expect(problems).toEqual([]);
  });

  it('are what the API reference quotes', async () => {
    const document = (await buildOpenApiDocument(LIMITS)) as unknown as {
      info: { description: string };
      paths: Record<string, { get?: { description?: string } }>;
    };
    expect(document.info.description).toContain(
      'Rate limits: 11/min per API key, 12/min per session, 13/min per IP for anonymous calls, and 14 sign-ins',
    );
    expect(document.info.description).toContain('(POST /auth/verify) per minute per IP and 15 per address.');
    expect(document.info.description).toContain('Idempotency-Key header (kept 2 h;');
    expect(document.info.description).toContain('Request bodies over 2 KiB are 413.');
    expect(document.paths['/auth/nonce']?.get?.description).toContain('valid for 5 min.');
    const sse = document.paths['/api/public/stream']?.get?.description ?? '';
    expect(sse).toContain('up to the last 250 events');
    expect(sse).toContain('every 5 s');
    expect(sse).toContain('At most 4 concurrent streams');
    const ws = document.paths['/ws']?.get?.description ?? '';
    expect(ws).toContain('At most 4 concurrent WebSockets');
    expect(ws).toContain('At most 7 messages per second per connection (burst 9)');
    expect(ws).toContain('a message over 1 KiB closes with 1009');
  });

  it('hold requests to them: a body over BODY_LIMIT_BYTES is 413, and the message quotes the setting', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-limits-'));
    const config = loadConfig({
      ...LIMITS,
      DATA_DIR: dataDir,
      DATABASE_URL: 'sqlite::memory:',
      LOG_LEVEL: 'silent',
      WORKER: 'false',
    });
    const app = await createApp({ config, registry: exampleRegistry(), log: pino({ level: 'silent' }) });
    try {
      const res = await app.server.inject({
        method: 'POST',
        url: '/api/v1/quote-requests',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ padding: 'x'.repeat(3000) }),
      });
      expect(res.statusCode).toBe(413);
      expect(res.json()).toEqual({
        error: 'the request body is larger than 2 KiB',
        code: 'PAYLOAD_TOO_LARGE',
        details: [{ path: 'body', message: 'larger than 2 KiB' }],
      });
    } finally {
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
