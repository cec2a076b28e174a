import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import { createFerryApi } from '../src/lp/ferry-api.ts';
import { createLpBot, type LpBot } from '../src/lp/lp-bot.ts';
import { WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { createSdkProject, npm, runProcess as run } from './support/sdk-project.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const consumerFiles = path.join(repoRoot, 'test', 'sdk-consumer');
const tsc59 = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');

const TSCONFIGS = {
  nodenext: { module: 'nodenext', target: 'es2022', strict: true, noEmit: true, types: [] },
  'bundler + DOM': {
    module: 'esnext',
    moduleResolution: 'bundler',
    target: 'es2022',
    lib: ['es2023', 'dom', 'dom.iterable'],
    strict: true,
    noEmit: true,
    types: [],
  },
};

/** Type-checks typecheck.ts in the consumer project with one compiler, in each setting; returns the failures. */
async function typeCheck(project: string, tsc: string): Promise<string[]> {
  const failures: string[] = [];
  for (const [name, compilerOptions] of Object.entries(TSCONFIGS)) {
    const file = path.join(project, `tsconfig.${name.replace(/\W+/g, '-')}.json`);
    fs.writeFileSync(file, JSON.stringify({ compilerOptions, files: ['typecheck.ts'] }));
    const result = await run(process.execPath, [tsc, '-p', file], project);
    if (result.code !== 0) failures.push(`${name}: ${result.stdout}${result.stderr}`);
  }
  return failures;
}

/**
 * The SDK as an integrator gets it: `npm pack` of sdk/, installed with viem into an empty project, then a plain
 * .mjs swap against a started Ferry and a .ts file type-checked under two compiler settings.
 */
describe('the @ferry/client package', () => {
  let h: Harness;
  let bot: LpBot;
  let project: string;

  beforeAll(async () => {
    ({ dir: project } = await createSdkProject());
    for (const name of ['swap.mjs', 'typecheck.ts']) {
      fs.copyFileSync(path.join(consumerFiles, name), path.join(project, name));
    }

    h = await startHarness({ worker: WORKER_ON, rateLimits: { apiKey: 100_000, session: 60, ip: 100_000 } });
    const lpKey = ANVIL_KEYS[4]!;
    const { privateKeyToAccount } = await import('viem/accounts');
    const lp = await h.createAccount('liquidityProvider', 'filler', privateKeyToAccount(lpKey).address);
    bot = createLpBot({
      api: createFerryApi({ baseUrl: h.baseUrl, apiKey: lp.apiKey }),
      privateKey: lpKey,
      spreadBps: 20,
      log: { debug() {}, info() {}, warn() {}, error() {} },
      journal: h.lpJournal(),
    });
    bot.start(200);
  }, 300_000);
  afterAll(async () => {
    await bot?.stop();
    await h?.close();
    if (project) fs.rmSync(project, { recursive: true, force: true });
  });

  it('holds only the built JavaScript, declarations and package.json', () => {
    const listing = fs.readdirSync(path.join(project, 'node_modules', '@ferry', 'client'), {
      recursive: true,
    });
    const files = (listing as string[]).filter((f) => f.includes('.')).sort();
    expect(files.filter((f) => !/^(dist\/[a-z-]+\.(js|d\.ts)|package\.json|README\.md)$/.test(f))).toEqual(
      [],
    );
    expect(files).toContain('dist/ferry-client.js');
    expect(files).toContain('dist/ferry-client.d.ts');
    // The entry package.json's `exports` names.
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    // One viem in the consumer: the SDK brings none of its own.
    expect(
      fs.existsSync(path.join(project, 'node_modules', '@ferry', 'client', 'node_modules', 'viem')),
    ).toBe(false);
  });

  it('makes a whole swap from a plain .mjs file', async () => {
    const mm = await h.createAccount('moneyMover', 'integrator');
    const result = await run(process.execPath, ['swap.mjs'], project, {
      FERRY_URL: h.baseUrl,
      FERRY_API_KEY: mm.apiKey,
      OFFERER_KEY: ANVIL_KEYS[2]!,
      RECIPIENT: h.otherWallet.address,
      RPC_URL: h.registry.chain(h.chainA)!.rpcUrl,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const outcome = JSON.parse(result.stdout) as { orderId: string; status: string; outputAmount: string };
    expect(outcome).toMatchObject({ status: 'completed', outputAmount: '1497000' });
    const order = await h.http('GET', `/api/public/orders/${outcome.orderId}`);
    expect(order.body.data.order.status).toBe('completed');
  }, 120_000);

  it('type-checks with the TypeScript in node_modules under nodenext and under bundler + DOM', async () => {
    expect(await typeCheck(project, tsc59)).toEqual([]);
  }, 300_000);

  it('its sources type-check with lib DOM too (bundlers may compile them for a browser)', async () => {
    const result = await run(
      process.execPath,
      [
        tsc59,
        '-p',
        'sdk/tsconfig.build.json',
        '--noEmit',
        '--declaration',
        'false',
        '--lib',
        'es2023,dom,dom.iterable',
      ],
      repoRoot,
    );
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  }, 300_000);

  it("type-checks with the registry's latest TypeScript too", async (ctx) => {
    const latest = path.join(project, 'latest-ts');
    fs.mkdirSync(latest);
    fs.writeFileSync(path.join(latest, 'package.json'), '{"private":true}');
    const installed = await npm(['install', '--prefer-offline', 'typescript@latest'], latest);
    // Offline machines cannot fetch it: say so rather than pass without checking.
    if (installed.code !== 0)
      ctx.skip(`typescript@latest could not be installed: ${installed.stderr.trim()}`);
    const tsc = path.join(latest, 'node_modules', 'typescript', 'bin', 'tsc');
    expect(await typeCheck(project, tsc)).toEqual([]);
  }, 300_000);
});
