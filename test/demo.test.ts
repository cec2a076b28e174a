import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

function runCli(
  args: string[],
  timeoutMs: number,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/ferry.js', ...args], {
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`ferry ${args.join(' ')} did not exit in ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('ferry demo', () => {
  it('runs one whole swap on fresh devnets and shows every step, the tx hashes and the balances', async () => {
    const { code, stdout, stderr } = await runCli(['demo'], 120_000);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const steps = stdout
      .split('\n')
      .map((line) => /^ {2}✓ (\S+(?: \S+)?)\s{2,}/.exec(line)?.[1])
      .filter(Boolean);
    expect(steps).toEqual([
      'devnets',
      'API',
      'accounts',
      'approve',
      'quote request',
      'LP quote',
      'accept',
      'sign',
      'swap',
      'deposit',
      'fill',
      'settle',
    ]);
    const txOf = (step: string) =>
      new RegExp(`^ {2}✓ ${step}\\s.*\\(tx (0x[0-9a-f]{64})\\)$`, 'm').exec(stdout)?.[1];
    const hashes = ['deposit', 'fill', 'settle'].map(txOf);
    expect(hashes).toEqual([
      expect.stringMatching(/^0x/),
      expect.stringMatching(/^0x/),
      expect.stringMatching(/^0x/),
    ]);
    expect(new Set(hashes).size).toBe(3);
    expect(stdout).toMatch(
      /offerer\s+0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC devnet-a\s+1000000\s+999975\s+-25\n/,
    );
    expect(stdout).toMatch(
      /recipient 0x90F79bf6EB2c4f870365E785982E1f101E93b906 devnet-b\s+1000000\s+1000024.925\s+\+24.925\n/,
    );
    expect(stdout).toMatch(/the LP earned 0.075 USDC/);
  }, 130_000);

  it('exits non-zero and names the step when it runs out of time', async () => {
    // On instant devnets a whole demo can finish within a second; with a block every 10 s its three chain steps
    // (deposit, fill, settle) each wait for a block of their own, so it cannot.
    const { code, stdout, stderr } = await runCli(['demo', '--timeout', '1'], 60_000, {
      DEVNET_BLOCK_TIME: '10',
    });
    expect(code).toBe(1);
    expect(stdout).toMatch(/^ {2}✗ .*timed out after 1 s$/m);
    expect(stderr).toMatch(/^ferry demo: step ".+" failed: timed out after 1 s$/m);
    expect(stdout).not.toMatch(/✓ settle/);
  }, 70_000);

  it('--api swaps through a Ferry already running on its own devnets, whose public API then shows the swap', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-demo-api-'));
    const [port, portA, portB] = await Promise.all([freePort(), freePort(), freePort()]);
    const env = {
      DATA_DIR: dir,
      DATABASE_URL: '',
      CHAIN_REGISTRY: '',
      PORT: String(port),
      DEVNET_PORT_A: String(portA),
      DEVNET_PORT_B: String(portB),
    };
    const ferry = await startFerry(env);
    try {
      const api = `http://127.0.0.1:${port}`;
      // A demo run before this one left its liquidity provider (fill address: demo wallet 4): this run reuses it.
      const maker = ['--type', 'liquidityProvider', '--name', 'demo market maker'];
      const fill = ['--address', '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65', '--json'];
      const earlier = JSON.parse(
        (await runCli(['accounts', 'create', ...maker, ...fill], 30_000, env)).stdout,
      );
      const { code, stdout, stderr } = await runCli(['demo', '--api', api], 120_000, env);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(stdout).toMatch(new RegExp(`liquidity provider ${earlier.account.id} .*\\(reused\\)`));
      const listed = JSON.parse((await runCli(['accounts', 'list', '--json'], 30_000, env)).stdout);
      expect(listed.accounts.map((a: { name: string }) => a.name)).toEqual([
        'demo market maker',
        'demo wallet app',
      ]);
      expect(stdout).toContain(`one cross-chain swap through the Ferry at ${api}`);
      const steps = stdout
        .split('\n')
        .map((line) => /^ {2}✓ (\S+(?: \S+)?)\s{2,}/.exec(line)?.[1])
        .filter(Boolean);
      expect(steps).toEqual([
        'API',
        'accounts',
        'approve',
        'quote request',
        'LP quote',
        'accept',
        'sign',
        'swap',
        'deposit',
        'fill',
        'settle',
      ]);
      const orderId = /order (ord_\w+) created/.exec(stdout)?.[1];
      expect(orderId).toBeDefined();
      const res = await fetch(`${api}/api/public/orders/${orderId}`);
      const body = (await res.json()) as { data: { order: { id: string; status: string } } };
      expect(body.data.order.status).toBe('completed');
    } finally {
      ferry.kill('SIGTERM');
      await new Promise((resolve) => ferry.once('exit', resolve));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('--api refuses a URL that is not a Ferry on its own devnets, naming why', async () => {
    const port = await freePort();
    const { code, stdout, stderr } = await runCli(['demo', '--api', `http://127.0.0.1:${port}`], 30_000);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^ {2}✗ API\s+cannot reach Ferry at http:\/\/127\.0\.0\.1:\d+: /m);
    expect(stderr).toMatch(/^ferry demo: step "API" failed: cannot reach Ferry/m);
    const bad = await runCli(['demo', '--api', 'ftp://x'], 30_000);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('ferry demo: --api must be an http(s) URL, e.g. http://127.0.0.1:8080\n');
  }, 70_000);
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** `ferry start` with its own devnets, resolved once it prints that it listens. */
function startFerry(env: Record<string, string>): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/ferry.js', 'start'], {
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`ferry start did not listen in 60 s\n${out}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ferry is listening on')) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`ferry start exited (${code})\n${out}`));
    });
  });
}
