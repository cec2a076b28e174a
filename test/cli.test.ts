import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { SETTINGS } from '../src/config/settings.ts';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import { createDatabase } from '../src/store/engine/database.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { createTestDatabaseUrl } from './support/test-database.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The operator CLI end to end: `node bin/ferry.js …` as a child process on its own fresh database
 * (a SQLite file, or a fresh PostgreSQL database when FERRY_TEST_PG is set).
 */
describe('the ferry CLI', () => {
  let h: Harness;
  let dir: string;
  let database: { url: string; drop: () => Promise<void> };
  let sqliteFile: string;

  const ferry = (args: string[], env: Record<string, string> = {}, cwd = repoRoot): Promise<CliResult> => {
    const childEnv: Record<string, string | undefined> = {
      ...process.env,
      DATABASE_URL: database.url,
      DATA_DIR: dir,
      LOG_LEVEL: 'silent',
      ...env,
    };
    delete childEnv.PORT;
    if (env.PORT !== undefined) childEnv.PORT = env.PORT;
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [path.join(repoRoot, 'bin', 'ferry.js'), ...args],
        { cwd, env: childEnv, timeout: 60_000 },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
  };

  beforeAll(async () => {
    h = await startHarness();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-cli-'));
    sqliteFile = path.join(dir, 'cli.sqlite');
    database = await createTestDatabaseUrl(sqliteFile);
  });
  afterAll(async () => {
    await h?.close();
    await database?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** What every command that opens the database prints first (on stderr: stdout stays parseable). */
  const databaseLine = () => `database: ${database.url.replace(/\/\/([^:/@]+):([^@]+)@/, '//$1:***@')}\n`;

  it('migrate applies the schema once, then reports the database up to date', async () => {
    const first = await ferry(['migrate']);
    expect(first.stderr).toBe(databaseLine());
    expect(first.code).toBe(0);
    expect(first.stdout.trim()).toBe(
      'applied: 0001-initial, 0002-settlement, 0003-expiry-indexes, 0004-chain-action-txs, 0005-log-cursors, 0006-event-xid, 0007-auth-limits, 0008-explorer-search, 0009-quotes-request-index, 0010-tx-ledger, 0011-lp-commitments, 0012-webhooks, 0014-settlement-messages, 0015-swap-permits, 0016-protocol-fee, 0017-offerer-funds, 0018-webhook-fairness, 0019-lp-promises, 0020-offerer-open-input, 0021-chain-action-orders, 0022-settlement-message-index, 0023-offerer-input-totals, 0024-proof-sent-guid, 0025-revert-times-index, 0026-open-filling, 0027-onchain-orders',
    );
    const second = await ferry(['migrate']);
    expect(second.code).toBe(0);
    expect(second.stdout.trim()).toBe('database is up to date');
  }, 60_000);

  it('an invalid environment makes the command fail and names the variable', async () => {
    const result = await ferry(['migrate'], { PORT: 'abc' });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('PORT');
    expect(result.stderr).toContain('"abc"');
    expect(result.stdout).toBe('');
  }, 60_000);

  it('creates accounts and keys, stores only hashes, and revoked keys stop working at once', async () => {
    const created = await ferry(['accounts', 'create', '--type', 'moneyMover', '--name', 'Acme', '--json']);
    expect(created.stderr).toBe(databaseLine());
    expect(created.code).toBe(0);
    const out = JSON.parse(created.stdout) as {
      account: { id: string; type: string; name: string; address: string | null; createdAt: string };
      apiKey: string;
      reused: boolean;
    };
    expect(Object.keys(out).sort()).toEqual(['account', 'apiKey', 'reused']);
    expect(out.reused).toBe(false);
    expect(out.account.id).toMatch(/^acc_/);
    expect(out.account.type).toBe('moneyMover');
    expect(out.account.name).toBe('Acme');
    expect(out.account.address).toBeNull();
    expect(out.apiKey).toMatch(/^fry_[A-Za-z0-9_-]{40,}$/);
    const accountId = out.account.id;
    const firstKey = out.apiKey;

    // Independent commands run side by side: each CLI start costs a couple of seconds.
    const lpAddress = h.otherWallet.address.toLowerCase();
    const [lp, noAddress, badType, badAddress, unknownAccount] = await Promise.all([
      ferry(['accounts', 'create', '--type', 'liquidityProvider', '--name', 'LP', '--address', lpAddress]),
      ferry(['accounts', 'create', '--type', 'liquidityProvider', '--name', 'LP without address']),
      ferry(['accounts', 'create', '--type', 'whale', '--name', 'Nope']),
      ferry(['accounts', 'create', '--type', 'liquidityProvider', '--name', 'Bad', '--address', '0x12']),
      ferry(['keys', 'create', '--account', 'acc_nope']),
    ]);
    expect(lp.code).toBe(0);
    expect(lp.stdout).toMatch(
      /^created liquidityProvider acc_\S+\nAPI key \(shown once, store it now\): fry_\S+\n$/,
    );
    expect(noAddress.code).not.toBe(0);
    expect(noAddress.stderr).toContain('--address');
    expect(noAddress.stdout).toBe('');
    expect(badType.code).not.toBe(0);
    expect(badType.stderr).toContain('moneyMover, liquidityProvider');
    expect(badAddress.code).not.toBe(0);
    expect(badAddress.stderr).toContain('--address');
    expect(unknownAccount.code).not.toBe(0);
    expect(unknownAccount.stderr).toContain('acc_nope');

    const second = await ferry(['keys', 'create', '--account', accountId, '--json']);
    expect(second.code).toBe(0);
    const issued = JSON.parse(second.stdout) as { apiKey: string; key: { id: string; accountId: string } };
    expect(issued.key.accountId).toBe(accountId);
    expect(issued.key.id).toMatch(/^key_/);
    expect(issued.apiKey).not.toBe(firstKey);
    const secondKey = issued.apiKey;

    const [listed, listedJson] = await Promise.all([
      ferry(['keys', 'list', '--account', accountId]),
      ferry(['keys', 'list', '--account', accountId, '--json']),
    ]);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).toMatch(/^key_\S+ {2}fry_\S{6}… {2}created \S+ {2}live$/);
    expect(listed.stdout).toContain(issued.key.id);
    expect(listed.stdout).not.toContain(firstKey);
    expect(listed.stdout).not.toContain(secondKey);

    const keyList = (JSON.parse(listedJson.stdout) as { keys: { id: string; revokedAt: string | null }[] })
      .keys;
    expect(keyList).toHaveLength(2);
    expect(listedJson.stdout).not.toContain(firstKey);
    expect(listedJson.stdout).not.toContain(secondKey);
    const firstKeyId = keyList.find((k) => k.id !== issued.key.id)!.id;

    // Only a hash of each key is stored, never the key.
    const db = createDatabase({ databaseUrl: database.url });
    try {
      const rows = await db.db
        .selectFrom('api_keys')
        .selectAll()
        .where('account_id', '=', accountId)
        .execute();
      expect(rows).toHaveLength(2);
      const dump = JSON.stringify(rows);
      for (const key of [firstKey, secondKey]) {
        expect(dump).not.toContain(key);
        expect(dump).not.toContain(key.slice(4));
        expect(rows.map((r) => r.key_hash)).toContain(createHash('sha256').update(key).digest('hex'));
      }
      const accounts = await db.db.selectFrom('accounts').select('name').execute();
      expect(accounts.map((a) => a.name).sort()).toEqual(['Acme', 'LP']);
    } finally {
      await db.destroy();
    }
    if (database.url.startsWith('sqlite:')) {
      // Not in any page of the database file or its write-ahead log either.
      for (const file of [sqliteFile, `${sqliteFile}-wal`]) {
        if (!fs.existsSync(file)) continue;
        const bytes = fs.readFileSync(file);
        expect(bytes.includes(firstKey)).toBe(false);
        expect(bytes.includes(secondKey)).toBe(false);
      }
    }

    const revoked = await ferry(['keys', 'revoke', firstKeyId]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout.trim()).toBe(`revoked ${firstKeyId}`);
    const revokedAgain = await ferry(['keys', 'revoke', firstKeyId]);
    expect(revokedAgain.code).not.toBe(0);
    expect(revokedAgain.stderr).toContain(firstKeyId);

    const afterRevoke = await ferry(['keys', 'list', '--account', accountId]);
    expect(afterRevoke.stdout).toMatch(new RegExp(`^${firstKeyId} .*REVOKED$`, 'm'));
    expect(afterRevoke.stdout).toMatch(new RegExp(`^${issued.key.id} .*live$`, 'm'));

    // An API server on that same database honours the revocation.
    const config = loadConfig(
      {
        PORT: '0',
        DATA_DIR: dir,
        DATABASE_URL: database.url,
        LOG_LEVEL: 'silent',
        CHAIN_REGISTRY: '',
        WORKER: 'false',
      },
      { siweDomains: ['ferry.test'] },
    );
    const app = await createApp({ config, registry: h.registry, log: pino({ level: 'silent' }) });
    try {
      const base = await app.listen();
      const get = async (apiKey: string) => {
        const response = await fetch(`${base}/api/v1/orders`, { headers: { 'x-api-key': apiKey } });
        return { status: response.status, body: (await response.json()) as any };
      };
      const dead = await get(firstKey);
      expect(dead.status).toBe(401);
      expect(dead.body.code).toBe('UNAUTHORIZED');
      const live = await get(secondKey);
      expect(live.status).toBe(200);
      expect(live.body.data.total).toBe(0);
    } finally {
      await app.close();
    }
  }, 180_000);

  it('--allow-wallet-sign-in opens a money mover with an address to wallet sign-in; it needs --address', async () => {
    const wallet = h.offerer.address;
    const create = (name: string, ...extra: string[]) =>
      ferry(['accounts', 'create', '--name', name, ...extra]);
    // Two CLI runs only: each start costs seconds on a loaded machine. The service refuses the other combinations.
    const [opted, noAddress] = await Promise.all([
      create('Opted', '--type', 'moneyMover', '--address', wallet, '--allow-wallet-sign-in', '--json'),
      create('Nowhere', '--type', 'moneyMover', '--allow-wallet-sign-in'),
    ]);
    expect(opted.code).toBe(0);
    expect(JSON.parse(opted.stdout).account).toMatchObject({ address: wallet, walletSignIn: true });
    expect(noAddress.code).not.toBe(0);
    expect(noAddress.stderr).toContain('--allow-wallet-sign-in');
    expect(noAddress.stdout).toBe('');
  }, 120_000);

  it('--version prints the package version; start --help lists every setting with its default', async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      version: string;
    };
    const [version, help] = await Promise.all([ferry(['--version']), ferry(['start', '--help'])]);
    expect(version).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    expect(help.code).toBe(0);
    for (const [name, setting] of Object.entries(SETTINGS)) {
      expect(help.stdout).toContain(`${name}=${setting.shown}`);
    }
    expect(help.stdout).toContain('PORT=8080');
    expect(help.stdout).toContain('DEVNET_PORT_A=8545');
  }, 60_000);

  it('start refuses a port in use before starting anything, in one line naming the port and its setting', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = String((holder.address() as net.AddressInfo).port);
    try {
      const [api, devnet] = await Promise.all([
        ferry(['start'], { PORT: port, CHAIN_REGISTRY: h.registryFile }),
        ferry(['start'], { PORT: '0', CHAIN_REGISTRY: '', DEVNET_PORT_A: port }),
      ]);
      expect(api.code).toBe(1);
      expect(api.stderr).toBe(
        `ferry: port ${port} (PORT) is already in use; stop what holds it or set PORT to a free port\n`,
      );
      expect(devnet.code).toBe(1);
      expect(devnet.stderr).toBe(
        `ferry: port ${port} (DEVNET_PORT_A) is already in use; stop what holds it or set DEVNET_PORT_A to a free port\n`,
      );
      // Refused before the devnets started: nothing was written to the data folder.
      expect(fs.existsSync(path.join(dir, 'devnets'))).toBe(false);
    } finally {
      holder.close();
    }
  }, 60_000);

  it('LOG_FORMAT=pretty writes readable lines; piped output is JSON by default; a bad value is refused', async () => {
    /** Runs `ferry start` on the test's chains until it has logged that it listens, then stops it. */
    const startAndStop = (env: Record<string, string>) =>
      new Promise<string>((resolve, reject) => {
        const { LOG_FORMAT: _inherited, ...inherited } = process.env;
        const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'ferry.js'), 'start'], {
          cwd: repoRoot,
          env: {
            ...inherited,
            DATABASE_URL: database.url,
            DATA_DIR: dir,
            CHAIN_REGISTRY: h.registryFile,
            PORT: '0',
            WORKER: 'false',
            LOG_LEVEL: 'info',
            ...env,
          },
        });
        let out = '';
        const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('Server listening')) child.kill('SIGTERM');
        });
        child.on('error', reject);
        child.on('exit', () => {
          clearTimeout(timer);
          resolve(out);
        });
      });
    const pretty = await startAndStop({ LOG_FORMAT: 'pretty' });
    expect(pretty).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}database ready database=\S+ applied=\[/m);
    expect(pretty).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}Server listening at http:\/\/127\.0\.0\.1:\d+$/m);
    expect(pretty).not.toContain('{"level"');
    const piped = await startAndStop({});
    const firstLine = piped.split('\n')[0] ?? '';
    expect(JSON.parse(firstLine)).toMatchObject({ level: 30 });
    const refused = await ferry(['migrate'], { LOG_FORMAT: 'xml' });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('LOG_FORMAT');
  }, 90_000);

  it('start --registry (production) runs the API without the worker unless WORKER=true asks for it', async () => {
    const {
      CHAIN_REGISTRY: _r,
      WORKER: _w,
      RELAYER_PRIVATE_KEY: _k,
      ATTESTER_PRIVATE_KEY: _a,
      ...inherited
    } = process.env;
    const env = { ...inherited, DATABASE_URL: database.url, DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'silent' };
    const banner = await new Promise<string>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [path.join(repoRoot, 'bin', 'ferry.js'), 'start', '--registry', h.registryFile],
        { cwd: repoRoot, env },
      );
      let out = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (/^ {2}Worker .*$/m.test(out)) child.kill('SIGTERM');
      });
      child.on('error', reject);
      child.on('exit', () => {
        clearTimeout(timer);
        resolve(out);
      });
    });
    // No relayer key was given, and none was needed: the API runs alone.
    expect(banner).toContain('Ferry is listening on http://127.0.0.1:');
    expect(banner).toContain('  Worker         off: run `ferry worker` (or set WORKER=true)\n');
    const asked = await ferry(['start', '--registry', h.registryFile], { ...env, WORKER: 'true' });
    expect(asked.code).toBe(1);
    expect(asked.stderr).toContain('RELAYER_PRIVATE_KEY');
  }, 120_000);

  it('a relative DATA_DIR is taken from the Ferry folder, whatever folder the command runs in', async () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-cwd-'));
    const dataDir = path.join(dir, 'relative-data');
    try {
      const result = await ferry(
        ['migrate'],
        { DATA_DIR: path.relative(repoRoot, dataDir), DATABASE_URL: '' },
        elsewhere,
      );
      expect(result.code).toBe(0);
      expect(result.stderr).toBe(`database: sqlite:${path.join(dataDir, 'ferry.sqlite')}\n`);
      expect(fs.existsSync(path.join(dataDir, 'ferry.sqlite'))).toBe(true);
      expect(fs.readdirSync(elsewhere)).toEqual([]);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  }, 60_000);

  it('lp checks its credentials at start: one line and exit 1; its API URL defaults from PORT', async () => {
    const mm = await h.createAccount('moneyMover', 'not an LP');
    const port = new URL(h.baseUrl).port;
    const base = ['lp', '--private-key', ANVIL_KEYS[4], '--spread-bps', '10', '--once'];
    const [wrongType, badKey] = await Promise.all([
      ferry([...base, '--api-key', mm.apiKey], { PORT: port, LOG_LEVEL: 'silent' }),
      ferry([...base, '--api-key', 'fry_unknown', '--api-url', h.baseUrl]),
    ]);
    expect(wrongType.code).toBe(1);
    expect(wrongType.stderr).toBe(
      `ferry lp: the API key belongs to moneyMover account ${mm.id}, not to a liquidity provider\n`,
    );
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).toMatch(
      /^ferry lp: the API key is not valid at http:\/\/127\.0\.0\.1:\d+ \(UNAUTHORIZED: [^\n]+\)\n$/,
    );
  }, 60_000);
});
