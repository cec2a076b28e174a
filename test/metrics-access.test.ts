import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleRegistry } from '../scripts/openapi-document.ts';
import { createApp, createWorkerProcess } from '../src/app.ts';
import { ConfigError, loadConfig } from '../src/config/config.ts';
import { isLoopbackHost } from '../src/config/metrics-access.ts';
import { createShutdownRegistry } from '../src/process/shutdown-registry.ts';

/**
 * Who may read GET /metrics (docs/metrics.md#access): the METRICS_TOKEN bearer; without a token, anyone only on
 * a loopback HOST without a proxy in front, or when METRICS_PUBLIC=true. Any other setup refuses to start.
 * Each case is a real API listening on the HOST it names, scraped over HTTP.
 */
const TOKEN = 'metrics-access-token-0123456789';
const repoRoot = path.resolve(import.meta.dirname, '..');
const refusedOnHost =
  'METRICS_TOKEN is required: HOST=0.0.0.0 is not a loopback address, so GET /metrics would be open to the network; set METRICS_TOKEN (scrapers send Authorization: Bearer <token>), or METRICS_PUBLIC=true to serve it without a token';

describe('access to GET /metrics', () => {
  let dataDir: string;
  const env = (settings: Record<string, string>) => ({
    DATA_DIR: dataDir,
    DATABASE_URL: 'sqlite::memory:',
    LOG_LEVEL: 'silent',
    WORKER: 'false',
    PORT: '0',
    ...settings,
  });

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-metrics-access-'));
  });
  afterAll(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** Starts an API with these settings, scrapes /metrics over 127.0.0.1 with each header set, and stops it. */
  async function scrape(settings: Record<string, string>, ...headerSets: Record<string, string>[]) {
    const app = await createApp({
      config: loadConfig(env(settings)),
      registry: exampleRegistry(),
      log: pino({ level: 'silent' }),
    });
    try {
      await app.listen();
      const { port } = app.server.server.address() as net.AddressInfo;
      const answers = [];
      for (const headers of headerSets) {
        const res = await fetch(`http://127.0.0.1:${port}/metrics`, { headers });
        const text = await res.text();
        answers.push({ status: res.status, text });
      }
      return answers;
    } finally {
      await app.close();
    }
  }

  async function refusal(settings: Record<string, string>): Promise<ConfigError> {
    const error = await createApp({
      config: loadConfig(env(settings)),
      registry: exampleRegistry(),
      log: pino({ level: 'silent' }),
    }).then(
      async (app) => {
        await app.close();
        return null;
      },
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }

  it('HOST=0.0.0.0 without METRICS_TOKEN or METRICS_PUBLIC refuses to start, in one line naming the variable', async () => {
    expect((await refusal({ HOST: '0.0.0.0' })).problems).toEqual([refusedOnHost]);
    expect((await refusal({ HOST: '::' })).problems[0]).toMatch(/^METRICS_TOKEN is required: HOST=:: is not/);
  });

  it('a loopback HOST behind a proxy (TRUST_PROXY set) refuses too: the proxy forwards /metrics', async () => {
    expect((await refusal({ HOST: '127.0.0.1', TRUST_PROXY: '1' })).problems).toEqual([
      'METRICS_TOKEN is required: TRUST_PROXY is set, so a proxy forwards outside requests to GET /metrics; set METRICS_TOKEN (scrapers send Authorization: Bearer <token>), or METRICS_PUBLIC=true to serve it without a token',
    ]);
  });

  it('`ferry start` refuses before starting anything, in one line on stderr', async () => {
    const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
      const { METRICS_TOKEN: _t, METRICS_PUBLIC: _p, TRUST_PROXY: _x, ...inherited } = process.env;
      execFile(
        process.execPath,
        [path.join(repoRoot, 'bin', 'ferry.js'), 'start'],
        { cwd: repoRoot, env: { ...inherited, ...env({ HOST: '0.0.0.0' }) }, timeout: 60_000 },
        (error, _stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stderr }),
      );
    });
    expect(result).toEqual({ code: 1, stderr: `ferry: Invalid configuration:\n  - ${refusedOnHost}\n` });
    // Refused before the devnets started.
    expect(fs.existsSync(path.join(dataDir, 'devnets'))).toBe(false);
  }, 60_000);

  it('a worker-only process on HOST=0.0.0.0 with METRICS_PORT refuses the same way', async () => {
    const log = pino({ level: 'silent' });
    const shutdown = createShutdownRegistry(log);
    const started = createWorkerProcess({
      config: loadConfig(env({ HOST: '0.0.0.0', METRICS_PORT: '9464' })),
      registry: exampleRegistry(),
      log,
      shutdown,
    });
    await expect(started).rejects.toThrow(
      /METRICS_TOKEN is required: HOST=0\.0\.0\.0 is not a loopback address/,
    );
    await shutdown.close();
  });

  it('with METRICS_TOKEN on 0.0.0.0: no token 401, a wrong token 401, the token 200', async () => {
    const [none, wrong, right] = await scrape(
      { HOST: '0.0.0.0', METRICS_TOKEN: TOKEN },
      {},
      { authorization: 'Bearer not-the-token' },
      { authorization: `Bearer ${TOKEN}` },
    );
    expect(none!.status).toBe(401);
    expect(JSON.parse(none!.text)).toEqual({
      error: 'the metrics endpoint needs Authorization: Bearer <METRICS_TOKEN>',
      code: 'UNAUTHORIZED',
      details: [{ path: 'headers.authorization', message: 'is required' }],
    });
    expect(wrong!.status).toBe(401);
    expect(JSON.parse(wrong!.text).details).toEqual([
      { path: 'headers.authorization', message: 'is not the metrics token' },
    ]);
    expect(right!.status).toBe(200);
    expect(right!.text).toContain('# TYPE ferry_http_requests_total counter');
  });

  it('on a loopback HOST (the default) without a token it is open: `npm start` on a laptop', async () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    const [open] = await scrape({}, {});
    expect(open!.status).toBe(200);
    expect(open!.text).toContain('# TYPE ferry_open_streams gauge');
  });

  it('METRICS_PUBLIC=true opens it on 0.0.0.0; with METRICS_TOKEN as well the start is refused', async () => {
    const [open] = await scrape({ HOST: '0.0.0.0', METRICS_PUBLIC: 'true' }, {});
    expect(open!.status).toBe(200);
    expect(open!.text).toContain('# TYPE ferry_orders gauge');
    expect(() => loadConfig({ METRICS_PUBLIC: 'true', METRICS_TOKEN: TOKEN })).toThrow(
      'METRICS_PUBLIC=true and METRICS_TOKEN are both set: unset one (a token closes GET /metrics)',
    );
  });

  it('counts only this machine as loopback', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.5', 'ferry.internal', '::ffff:10.0.0.1'])
      expect(isLoopbackHost(host), host).toBe(false);
  });
});
