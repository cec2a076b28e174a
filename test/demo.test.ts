import { spawn } from 'node:child_process';
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
});
