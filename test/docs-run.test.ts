import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DocBlock, describeBlock, extractBlocks, savedName } from './support/doc-blocks.ts';
import { escrowOrderStatus, gitStatus as gitStatusOf, paysIn } from './support/docs-run-checks.ts';
import { WORKER_ON } from './support/fixtures.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { alive, freePort, leftRunning, type Outcome, readNulPairs, tail } from './support/processes.ts';
import { createReaderFolders, type ReaderFolders } from './support/reader-folders.ts';
import { runProcess } from './support/sdk-project.ts';

/**
 * The pages of DOCS, run as a newcomer would: every fenced block in document order, against one started server with
 * its worker. Each page starts in the reader's Ferry clone (test/support/reader-folders.ts) and makes and installs
 * its own project where it says (`npm pack ./sdk`, `npm install`), with the real npm and npx.
 * - ```sh blocks run in bash with `set -e -o pipefail`; their variables and working folder carry to later blocks.
 * - ```js blocks whose first line is `// name.mjs` are saved under that name (the doc then runs them); other ```js
 *   blocks run with node.
 * - ```ts blocks are type-checked where the first one is reached (strict, `module: nodenext`, against the project's
 *   packages), then saved under their `// name.ts` first line, or run with `npx tsx` as docs/sdk.md says.
 * - ```json blocks are response samples: they must parse.
 * - `<!-- docs-run: skip (reason) -->` right before a fence skips that block; any other block fails the run.
 *
 * A block fails the test as soon as it exits non-zero, or as soon as a background process an earlier block started
 * (a `NAME_PID` variable) dies, with the block's place, text and output.
 */
const repoRoot = path.resolve(import.meta.dirname, '..');
const DOCS = {
  readme: 'README.md',
  moneyMover: 'docs/quickstart-money-mover.md',
  liquidityProvider: 'docs/quickstart-liquidity-provider.md',
  sdk: 'docs/sdk.md',
  webhooks: 'docs/webhooks.md',
  openOrders: 'docs/open-orders.md',
  /** Its blocks need terminals of their own: each is marked with the suite that runs it. */
  lpBot: 'docs/liquidity-provider-bot.md',
} as const;
const BLOCK_TIMEOUT_MS = 120_000;
const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
/** What the runner puts in the reader's clone (the rest, `npm pack`'s tarball too, must be git-ignored scratch). */
const RUNNER_FILE = /^(\.docs-run|bin$|sdk$|node_modules$|package\.json$)/;

const blocksOf = (doc: string) => extractBlocks(doc, fs.readFileSync(path.join(repoRoot, doc), 'utf8'));

const gitStatus = () => gitStatusOf(repoRoot);

const baselineVars = execFileSync('bash', ['-c', 'compgen -v'], { encoding: 'utf8' }).split('\n').join(' ');

describe('the docs run as written', () => {
  let h: Harness;
  let reader: ReaderFolders;
  let work: string;
  let runner: string;
  let cwd: string;
  let env: NodeJS.ProcessEnv;
  /** The reader's plain (not exported) shell variables. */
  let vars: Record<string, string> = {};
  let statusBefore: string | undefined;
  const groups = new Set<number>();
  /** What the reader's folder holds after both quickstarts, which have the reader work in the Ferry folder. */
  let scratchFiles: string[] = [];
  const ran: string[] = [];
  const skipped: string[] = [];

  beforeAll(async () => {
    statusBefore = gitStatus();
    // SIWE accepts the host:port the reader's FERRY names, so the server listens on a port known in advance.
    const port = await freePort();
    h = await startHarness({
      port,
      host: '127.0.0.1',
      siweDomains: [`127.0.0.1:${port}`],
      worker: WORKER_ON,
      rateLimits: { apiKey: 100_000, session: 100_000, ip: 100_000 },
    });
    // The reader's Ferry clone, where every page starts; `npx ferry` is the real npx running this CLI.
    reader = createReaderFolders();
    work = reader.ferry;
    cwd = work;
    runner = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-docs-runner-'));
    env = {
      ...process.env,
      ...reader.env,
      PATH: `${reader.bin}:${path.dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      FERRY: h.baseUrl,
      DATABASE_URL: h.config.databaseUrl,
      DATA_DIR: h.dataDir,
      LOG_LEVEL: 'warn',
    };
    delete env.PORT;
  }, 300_000);

  afterAll(async () => {
    // Whatever the docs left running in the background (LP bots, quoters), by the process group of its block.
    for (const group of groups) {
      try {
        process.kill(-group, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    await h?.close();
    reader?.remove();
    if (runner) fs.rmSync(runner, { recursive: true, force: true });
    console.log(
      `docs-run ran ${ran.length} blocks:\n  ${ran.join('\n  ')}\nskipped:\n  ${skipped.join('\n  ')}`,
    );
  });

  const shellVar = (name: string) => vars[name] ?? env[name];

  /**
   * Background processes the docs started (`NAME_PID=$!`) and have not stopped yet (`kill $NAME_PID`), with the
   * block that started each: one that has died is a failure, before or while a later block waits on it.
   */
  const background = new Map<string, { pid: number; group: number; startedBy: DocBlock }>();
  const trackBackground = async (block: DocBlock, group: number) => {
    const kills = (name: string) => new RegExp(`kill\\b.*\\$\\{?${name}\\b`).test(block.code);
    for (const [name, started] of background) {
      if (!kills(name)) continue;
      background.delete(name);
      const left = await leftRunning(started.group);
      if (left.length > 0) {
        throw new Error(
          `${describeBlock(block)} stops ${name} but what ${describeBlock(started.startedBy)} started keeps running:\n  ${left.join('\n  ')}`,
        );
      }
    }
    for (const [name, value] of Object.entries({ ...env, ...vars })) {
      const pid = Number(value);
      const started = name.endsWith('_PID') && pid > 0 && block.code.includes(name) && !kills(name);
      if (started && background.get(name)?.pid !== pid)
        background.set(name, { pid, group, startedBy: block });
    }
  };
  const deadBackground = () => {
    for (const [name, { pid, startedBy }] of background) {
      if (!alive(pid))
        return `background process ${name} (pid ${pid}, started by ${describeBlock(startedBy)}) exited`;
    }
    return undefined;
  };

  /**
   * Runs one command for a block in its own process group. Stops it, and says why, when it outlives the timeout or
   * when a background process of an earlier block dies and the block goes on: waiting on a dead LP bot never ends.
   */
  const execute = (file: string, args: string[]): Promise<Outcome> =>
    new Promise((resolve) => {
      let deadSince = 0;
      const child = spawn(file, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      const group = child.pid ?? 0;
      groups.add(group);
      let stdout = '';
      let stderr = '';
      let stopped: string | undefined;
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
      });
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      const stop = (why: string) => {
        stopped ??= why;
        try {
          process.kill(-group, 'SIGKILL');
        } catch {
          // already gone
        }
      };
      const timer = setTimeout(() => stop(`timed out after ${BLOCK_TIMEOUT_MS / 1000} s`), BLOCK_TIMEOUT_MS);
      // A block may stop a background process itself (`kill $LP_BOT_PID` as its last step): it then ends at once.
      const watchdog = setInterval(() => {
        const dead = deadBackground();
        if (!dead) return;
        deadSince ||= Date.now();
        if (Date.now() - deadSince > 2000) stop(`${dead} while this block waited`);
      }, 250);
      const finish = (code: number | null) => {
        clearTimeout(timer);
        clearInterval(watchdog);
        resolve({ group, code, stdout, stderr, ...(stopped ? { stopped } : {}) });
      };
      child.on('error', (error) => {
        stderr += String(error);
        finish(-1);
      });
      // `exit`, not `close`: a background process that kept the block's stdout open must not hold the test.
      child.on('exit', (code) => setTimeout(() => finish(code), 100));
    });

  /** The scratch logs in the reader's folder, to show what a background process said before it died. */
  const logs = () =>
    fs
      .readdirSync(cwd)
      .filter((name) => name.endsWith('.log'))
      .map((name) => `--- ${name}\n${tail(fs.readFileSync(path.join(cwd, name), 'utf8'), 3000)}`)
      .join('\n');

  const check = (block: DocBlock, outcome: Outcome) => {
    if (outcome.code === 0 && !outcome.stopped) return;
    throw new Error(
      [
        `${describeBlock(block)} failed: ${outcome.stopped ?? `exit code ${outcome.code}`}`,
        `--- block\n${block.code}`,
        `--- stdout\n${tail(outcome.stdout)}`,
        `--- stderr\n${tail(outcome.stderr)}`,
        logs(),
      ].join('\n'),
    );
  };

  /**
   * A ```sh block in the reader's shell: exported variables reach later blocks' processes, plain shell variables
   * only later blocks' shell code, as in one terminal (a script reading a variable the doc forgot to export fails).
   */
  const runShell = async (block: DocBlock) => {
    const state = path.join(runner, 'state');
    const q = (suffix: string) => JSON.stringify(`${state}.${suffix}`);
    const script = [
      'set -e -o pipefail',
      `[ -f ${q('vars')} ] && source ${q('vars')}`,
      block.code,
      `env -0 > ${q('env')}; pwd > ${q('cwd')}`,
      // Plain variables the doc set: the baseline is what a fresh bash defines.
      `for v in $(compgen -v); do case " ${baselineVars} _ " in *" $v "*) ;; *) [[ $(declare -p "$v") == "declare -- "* ]] && declare -p "$v" && printf '%s=%s\\0' "$v" "\${!v}" >> ${q('plain')}; esac; done > ${q('vars')}`,
      'true',
    ].join('\n');
    fs.rmSync(`${state}.plain`, { force: true });
    const outcome = await execute('bash', ['-c', script]);
    check(block, outcome);
    env = readNulPairs(`${state}.env`);
    vars = readNulPairs(`${state}.plain`);
    cwd = fs.readFileSync(`${state}.cwd`, 'utf8').trim();
    await trackBackground(block, outcome.group);
    return outcome;
  };

  const scratchName = (block: DocBlock, ext: string) =>
    `.docs-run-${path.basename(block.doc, '.md')}-${block.line}.${ext}`;

  /** The file a script or TypeScript block is written to: its own name, or a runner file. */
  const fileOf = (block: DocBlock) =>
    path.join(cwd, savedName(block) ?? scratchName(block, block.kind === 'typescript' ? 'ts' : 'mjs'));

  /** Type-checks all of a doc's TypeScript blocks against the installed `@ferry/client`, before any runs. */
  const typeCheck = async (blocks: DocBlock[]) => {
    if (blocks.length === 0) return;
    const files = blocks.map((block) => {
      const file = fileOf(block);
      fs.writeFileSync(file, block.code);
      return file;
    });
    const config = path.join(cwd, '.docs-run-tsconfig.json');
    const compilerOptions = {
      module: 'nodenext',
      target: 'es2022',
      strict: true,
      noEmit: true,
      types: ['node'],
    };
    fs.writeFileSync(config, JSON.stringify({ compilerOptions, files }));
    const result = await runProcess(process.execPath, [tsc, '-p', config], cwd);
    if (result.code === 0) return;
    const failing = blocks.filter((_, i) => result.stdout.includes(path.basename(files[i]!)));
    throw new Error(
      [
        `TypeScript in ${failing.map(describeBlock).join(', ') || 'the docs'} does not type-check:`,
        result.stdout + result.stderr,
        ...failing.map((block) => `--- ${describeBlock(block)}\n${block.code}`),
      ].join('\n'),
    );
  };

  const runDoc = async (doc: string) => {
    const blocks = blocksOf(doc);
    cwd = work; // a page starts in the Ferry clone; its blocks say where to go from there
    let checked = false;
    const outputs = new Map<DocBlock, string>();
    for (const block of blocks) {
      const where = describeBlock(block);
      if (block.kind === 'sample') continue;
      if (block.kind === 'skipped') {
        skipped.push(`${where}: ${block.skipReason}`);
        continue;
      }
      if (block.kind === 'unhandled') throw new Error(`${where} is neither run nor marked to skip`);
      const dead = deadBackground();
      if (dead) throw new Error(`${dead} before ${where} ran\n${logs()}`);
      if (block.kind === 'typescript' && !checked) {
        await typeCheck(blocks.filter((b) => b.kind === 'typescript'));
        checked = true;
      }
      if (block.kind === 'shell') outputs.set(block, (await runShell(block)).stdout);
      else if (savedName(block)) fs.writeFileSync(fileOf(block), block.code);
      else {
        const file = fileOf(block);
        fs.writeFileSync(file, block.code);
        const outcome = await (block.kind === 'typescript'
          ? execute('npx', ['tsx', file])
          : execute(process.execPath, [file]));
        check(block, outcome);
        outputs.set(block, outcome.stdout);
      }
      ran.push(where);
    }
    return outputs;
  };

  const outputUnder = (outputs: Map<DocBlock, string>, heading: string) =>
    [...outputs].filter(([block]) => block.heading === heading).map(([, stdout]) => stdout);

  it('every block is run, a JSON sample that parses, or marked to skip with a reason', () => {
    const problems: string[] = [];
    for (const doc of Object.values(DOCS)) {
      for (const block of blocksOf(doc)) {
        if (block.kind === 'unhandled')
          problems.push(`${describeBlock(block)}: neither run nor marked <!-- docs-run: skip (reason) -->`);
        if (block.kind === 'skipped' && !block.skipReason)
          problems.push(`${describeBlock(block)}: skip without a reason`);
        if (block.kind === 'sample') {
          try {
            JSON.parse(block.code);
          } catch (error) {
            problems.push(`${describeBlock(block)}: not JSON (${(error as Error).message})`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('README: the base URL and the chains', async () => {
    const outputs = await runDoc(DOCS.readme);
    expect(env.FERRY).toBe(h.baseUrl);
    const [chains] = outputUnder(outputs, 'First swap in two minutes');
    expect(JSON.parse(chains ?? '{}').data.chains).toHaveLength(2);
  }, 300_000);

  const orderStatus = async (apiKey: string | undefined) =>
    (await h.http('GET', `/api/v1/orders/${shellVar('ORDER')}`, { apiKey })).body.data?.status;

  it('the money-mover quickstart ends with the order completed', async () => {
    await runDoc(DOCS.moneyMover);
    expect(shellVar('ORDER')).toMatch(/^ord_/);
    expect(await orderStatus(shellVar('KEY'))).toBe('completed');
  }, 600_000);

  it('the liquidity-provider quickstart fills by hand and ends with the LP repaid', async () => {
    const filler = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
    await runDoc(DOCS.liquidityProvider);
    const order = (await h.http('GET', `/api/v1/orders/${shellVar('ORDER')}`, { apiKey: shellVar('LP_KEY') }))
      .body.data;
    expect(order.status).toBe('completed');
    expect(order.details.settlementTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    // Repaid: the settlement moved inputAmount to the fill address on the input chain.
    expect(await paysIn(h.devnets.chains[0]!.rpcUrl, order.details.settlementTxHash, filler)).toBe(true);
    scratchFiles = fs.readdirSync(work).filter((name) => !RUNNER_FILE.test(name));
  }, 600_000);

  it('the SDK and webhooks guides run through the packed @ferry/client: a swap, a quoting LP, errors, streams, a receiver', async () => {
    const outputs = await runDoc(DOCS.sdk);
    expect(outputUnder(outputs, 'Money mover: a whole swap').join('')).toMatch(
      /^completed 0x[0-9a-f]{64} null$/m,
    );
    expect(outputUnder(outputs, 'Liquidity provider: quote as requests arrive, and fill').join('')).toMatch(
      /^completed 0x[0-9a-f]{64} null\nlistening\nquoted q_\w+ 24925000\nfilled ord_\w+$/m,
    );
    expect(outputUnder(outputs, 'Sign-In with Ethereum').join('')).toContain("token: 'fsn_");
    expect(outputUnder(outputs, 'Errors').join('')).toMatch(/^POST \/api\/v1\/quote-requests: 400 /m);
    const hooks = outputUnder(await runDoc(DOCS.webhooks), 'A receiver, end to end').join('');
    expect(hooks).toMatch(/^verified quoteRequest\.created \d+ qr_\w+\nlog delivered 204$/m);
  }, 600_000);

  it('the open-orders page opens an order on chain with viem and a generic ERC-7683 filler fills it, settled on the input chain', async () => {
    const outputs = await runDoc(DOCS.openOrders);
    const orderId = shellVar('ORDER_ID') as `0x${string}`;
    expect(orderId).toMatch(/^0x[0-9a-f]{64}$/);
    const said = (section: string) => outputUnder(outputs, section).join('');
    // Ferry's worker read its Open event and follows it: in the public API, already deposited.
    expect(said('Example: open an order on chain with viem')).toMatch(/^onchain deposited ord_\w+$/m);
    expect(said('How liquidity providers learn of an open order')).toContain('"openOrders"');
    expect(said('Example: fill as a generic ERC-7683 filler')).toMatch(
      /^filled on devnet-b: 0x[0-9a-f]{64}\nsettled on devnet-a: paid 10000000 to 0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65$/m,
    );
    // Settled in the escrow on the input chain, as the page's last script waited for.
    const { rpcUrl, contracts } = h.devnets.chains[0]!;
    expect(await escrowOrderStatus(rpcUrl, contracts.escrow, orderId)).toBe(2);
  }, 300_000);

  it('leaves the Ferry folder as it was, and git ignores the files the quickstarts have the reader create', async (ctx) => {
    if (statusBefore === undefined) ctx.skip('not a git checkout');
    expect(gitStatus()).toBe(statusBefore);
    expect(scratchFiles).toContain('approve.mjs');
    const ignored = await runProcess('git', ['check-ignore', '--no-index', ...scratchFiles], repoRoot);
    expect(ignored.stdout.split('\n').filter(Boolean).sort()).toEqual([...scratchFiles].sort());
  });
});
