/**
 * The OpenAPI document exactly as the server serves it at GET /openapi.json, for the scripts that generate the
 * SDK's types and lint the document. The real app (createApp) is wired on an in-memory SQLite database and a
 * one-chain static registry: no chain is contacted, nothing listens, and the document is fetched by injecting
 * the request, so what is checked is the served bytes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { OpenAPI3 } from 'openapi-typescript';
import { pino } from 'pino';
import { createApp } from '../src/app.ts';
import { createChainRegistry } from '../src/chains/chain-registry.ts';
import { loadConfig } from '../src/config/config.ts';

/** `settings`: environment variables on top of the defaults (the limits the descriptions quote come from them). */
/** One chain no request ever reaches: enough for an app that answers without chains. */
export function exampleRegistry() {
  const zero = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
  return createChainRegistry({
    chains: [
      {
        name: 'example',
        chainId: 1,
        rpcUrl: 'http://127.0.0.1:1',
        contracts: { escrow: zero(1), fill: zero(2) },
        layerzero: {
          eid: 30101,
          endpoint: zero(4),
          sendLibrary: zero(5),
          receiveLibrary: zero(6),
          executor: zero(7),
          requiredDvns: [zero(8)],
        },
        tokens: [{ symbol: 'USDC', address: zero(3), decimals: 6 }],
      },
    ],
  });
}

export async function buildOpenApiDocument(settings: Record<string, string> = {}): Promise<OpenAPI3> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-openapi-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: 'sqlite::memory:',
    CHAIN_REGISTRY: '',
    LOG_LEVEL: 'silent',
    WORKER: 'false',
    PORT: '0',
    ...settings,
  });
  const app = await createApp({ config, registry: exampleRegistry(), log: pino({ level: 'silent' }) });
  try {
    const res = await app.server.inject({ method: 'GET', url: '/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}: ${res.body}`);
    return JSON.parse(res.body) as OpenAPI3;
  } finally {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
