import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabaseUrl } from './support/test-database.ts';

const repoRoot = path.resolve(import.meta.dirname, '..');
const FILL_ADDRESS = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

/**
 * `ferry accounts create --reuse` and `ferry accounts list`, as the quickstarts run them: a second run of a guide
 * gets a new key for the account its first run created instead of another account.
 */
describe('ferry accounts: reuse by name, and the list', () => {
  let dir: string;
  let database: { url: string; drop: () => Promise<void> };

  const ferry = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const env = { ...process.env, DATABASE_URL: database.url, DATA_DIR: dir, LOG_LEVEL: 'silent' };
      execFile(
        process.execPath,
        [path.join(repoRoot, 'bin', 'ferry.js'), ...args],
        { env },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? -1) : 0, stdout, stderr }),
      );
    });
  const create = async (...args: string[]) => {
    const result = await ferry(['accounts', 'create', ...args, '--json']);
    expect(result.stderr).toMatch(/^database: /);
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout) as {
      account: { id: string; name: string };
      apiKey: string;
      reused: boolean;
    };
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-cli-accounts-'));
    database = await createTestDatabaseUrl(path.join(dir, 'cli.sqlite'));
  });
  afterAll(async () => {
    await database?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('an empty database lists no accounts', async () => {
    const empty = await ferry(['accounts', 'list']);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe('no accounts\n');
  });

  it('--reuse creates the account once, then issues new keys for it; list shows each account once', async () => {
    const maker = ['--type', 'liquidityProvider', '--name', 'MakerOne', '--address', FILL_ADDRESS, '--reuse'];
    const first = await create(...maker);
    expect(first.reused).toBe(false);
    const again = await create(...maker.slice(0, -2), FILL_ADDRESS.toLowerCase(), '--reuse');
    expect(again.reused).toBe(true);
    expect(again.account.id).toBe(first.account.id);
    expect(again.apiKey).not.toBe(first.apiKey);
    const acme = await create('--type', 'moneyMover', '--name', 'Acme', '--reuse');
    expect(acme.reused).toBe(false);
    // Without --reuse, a name is no key: a second Acme is another account.
    const otherAcme = await create('--type', 'moneyMover', '--name', 'Acme');
    expect(otherAcme.account.id).not.toBe(acme.account.id);
    // With --reuse, the oldest of the name.
    expect((await create('--type', 'moneyMover', '--name', 'Acme', '--reuse')).account.id).toBe(
      acme.account.id,
    );

    const keys = await ferry(['keys', 'list', '--account', first.account.id]);
    expect(keys.stdout.trim().split('\n')).toHaveLength(2);

    const [text, json] = await Promise.all([
      ferry(['accounts', 'list']),
      ferry(['accounts', 'list', '--json']),
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${first.account.id} {2}liquidityProvider {2}"MakerOne" {2}${FILL_ADDRESS} {2}created \\S+$`,
        ),
      ),
      expect.stringMatching(new RegExp(`^${acme.account.id} {2}moneyMover {2}"Acme" {2}- {2}created \\S+$`)),
      expect.stringMatching(
        new RegExp(`^${otherAcme.account.id} {2}moneyMover {2}"Acme" {2}- {2}created \\S+$`),
      ),
    ]);
    const listed = (JSON.parse(json.stdout) as { accounts: { id: string; name: string; type: string }[] })
      .accounts;
    expect(listed.map((a) => [a.id, a.name, a.type])).toEqual([
      [first.account.id, 'MakerOne', 'liquidityProvider'],
      [acme.account.id, 'Acme', 'moneyMover'],
      [otherAcme.account.id, 'Acme', 'moneyMover'],
    ]);
  }, 120_000);

  it('--reuse refuses an account of that name with another address, naming it', async () => {
    const other = await ferry([
      'accounts',
      'create',
      '--type',
      'liquidityProvider',
      '--name',
      'MakerOne',
      '--address',
      '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
      '--reuse',
    ]);
    expect(other.code).toBe(1);
    expect(other.stdout).toBe('');
    expect(other.stderr).toMatch(
      new RegExp(
        `ferry: liquidityProvider account acc_\\w+ named MakerOne exists with address ${FILL_ADDRESS}, wallet sign-in off; give another --name`,
      ),
    );
  }, 60_000);
});
