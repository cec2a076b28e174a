import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createPublicClient, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';

/**
 * The two quickstarts, run as a newcomer would: every fenced block in document order, in one folder, against a
 * started server with its worker. ```sh blocks run in bash (their exported variables carry to later blocks, as in
 * the reader's shell); a ```js block whose first line is `// name.mjs` is saved under that name (the doc then runs
 * it), any other ```js/```ts block is run as is. `<!-- docs-run: skip (why) -->` before a fence skips it.
 */
const repoRoot = path.resolve(import.meta.dirname, '..');
const DOCS = ['docs/quickstart-money-mover.md', 'docs/quickstart-liquidity-provider.md'];
const SKIP = /<!--\s*docs-run:\s*skip\b[^>]*-->\s*$/;
const BLOCK_TIMEOUT_MS = 120_000;

interface Block {
  doc: string;
  line: number;
  lang: string;
  code: string;
  skipped: boolean;
}

/** Fenced blocks in document order; `skipped` when a skip marker is the last thing before the fence. */
function extractBlocks(doc: string, text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i] ?? '');
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i] ?? ''); i++) body.push(lines[i] ?? '');
    const before = lines.slice(0, start).join('\n').trimEnd();
    blocks.push({
      doc,
      line: start + 1,
      lang: open[1] ?? '',
      code: body.join('\n'),
      skipped: SKIP.test(before),
    });
  }
  return blocks;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const run = (file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Run> =>
  new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd, env, timeout: BLOCK_TIMEOUT_MS, maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

describe('the quickstarts run as written', () => {
  let h: Harness;
  let work: string;
  let env: NodeJS.ProcessEnv;
  const ran: string[] = [];
  const skipped: string[] = [];

  beforeAll(async () => {
    // SIWE accepts the host:port the reader's FERRY names, so the server listens on a port known in advance.
    const port = await freePort();
    h = await startHarness({
      port,
      host: '127.0.0.1',
      siweDomains: [`127.0.0.1:${port}`],
      worker: WORKER_ON,
      rateLimits: { apiKey: 100_000, session: 100_000, ip: 100_000 },
    });
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-docs-run-'));
    // The reader's folder has viem installed and `npx ferry` is this repo's CLI.
    fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(work, 'node_modules'));
    const bin = path.join(work, '.bin');
    fs.mkdirSync(bin);
    const npx = path.join(bin, 'npx');
    fs.writeFileSync(
      npx,
      `#!/usr/bin/env bash\nif [ "$1" = ferry ]; then shift; exec "${process.execPath}" "${path.join(repoRoot, 'bin', 'ferry.js')}" "$@"; fi\necho "docs-run: unexpected npx $*" >&2; exit 127\n`,
    );
    fs.chmodSync(npx, 0o755);
    env = {
      ...process.env,
      PATH: `${bin}:${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      FERRY: h.baseUrl,
      DATABASE_URL: h.config.databaseUrl,
      DATA_DIR: h.dataDir,
      LOG_LEVEL: 'warn',
    };
    delete env.PORT;
  }, 180_000);

  afterAll(async () => {
    const pid = Number(env?.LP_BOT_PID);
    if (pid > 0) {
      try {
        process.kill(pid);
      } catch {
        // already stopped by the doc's own `kill`
      }
    }
    await h?.close();
    console.log(
      `docs-run ran ${ran.length} blocks:\n  ${ran.join('\n  ')}\nskipped:\n  ${skipped.join('\n  ')}`,
    );
  });

  /** Runs one ```sh block; exported variables are read back so the next block sees them. */
  const runShell = async (block: Block) => {
    const envFile = path.join(work, '.env-after');
    const script = `set -eo pipefail\n${block.code}\nenv -0 > ${JSON.stringify(envFile)}\n`;
    const result = await run('bash', ['-c', script], work, env);
    const where = `${block.doc}:${block.line}`;
    expect(
      result.code,
      `${where} failed:\n${block.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`,
    ).toBe(0);
    env = {};
    for (const pair of fs.readFileSync(envFile, 'utf8').split('\0')) {
      const eq = pair.indexOf('=');
      if (eq > 0) env[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
    return result;
  };

  const runScript = async (block: Block) => {
    const named = /^\/\/ ([\w.-]+\.(?:mjs|js|ts))\b/.exec(block.code);
    if (named?.[1]) {
      fs.writeFileSync(path.join(work, named[1]), block.code);
      return `saved ${named[1]}`;
    }
    const file = path.join(work, `block-${block.line}.${block.lang === 'ts' ? 'ts' : 'mjs'}`);
    fs.writeFileSync(file, block.code);
    const runner =
      block.lang === 'ts' ? path.join(repoRoot, 'node_modules', '.bin', 'tsx') : process.execPath;
    const result = await run(runner, [file], work, env);
    expect(result.code, `${block.doc}:${block.line} failed:\n${result.stderr}`).toBe(0);
    return 'ran';
  };

  const runDoc = async (doc: string) => {
    for (const block of extractBlocks(doc, fs.readFileSync(path.join(repoRoot, doc), 'utf8'))) {
      const where = `${doc}:${block.line} (${block.lang || 'text'})`;
      if (!['sh', 'js', 'mjs', 'ts'].includes(block.lang)) continue;
      if (block.skipped) {
        skipped.push(where);
        continue;
      }
      if (block.lang === 'sh') await runShell(block);
      else await runScript(block);
      ran.push(where);
    }
  };

  const orderStatus = async (apiKey: string | undefined) =>
    (await h.http('GET', `/api/v1/orders/${env.ORDER}`, { apiKey })).body.data?.status;

  it('the money-mover quickstart ends with the order completed', async () => {
    await runDoc(DOCS[0]!);
    expect(env.ORDER).toMatch(/^ord_/);
    expect(await orderStatus(env.KEY)).toBe('completed');
  }, 600_000);

  it('the liquidity-provider quickstart fills by hand and ends with the LP repaid', async () => {
    const filler = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
    await runDoc(DOCS[1]!);
    const order = (await h.http('GET', `/api/v1/orders/${env.ORDER}`, { apiKey: env.LP_KEY })).body.data;
    expect(order.status).toBe('completed');
    expect(order.details.settlementTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    // Repaid: the settlement moved inputAmount to the fill address on the input chain.
    const inputChain = createPublicClient({ transport: http(h.devnets.chains[0]!.rpcUrl) });
    const receipt = await inputChain.getTransactionReceipt({ hash: order.details.settlementTxHash });
    const paid = receipt.logs.some((log) =>
      log.topics[2]?.toLowerCase().endsWith(filler.slice(2).toLowerCase()),
    );
    expect(paid).toBe(true);
  }, 600_000);
});
