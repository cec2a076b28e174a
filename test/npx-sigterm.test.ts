import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_KEYS } from '../src/devnet/devnet.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { sleep } from './support/polling.ts';
import { alive } from './support/processes.ts';
import { createReaderFolders, type ReaderFolders } from './support/reader-folders.ts';

/** The live members of a process group, by pid, read from /proc. */
function groupMembers(group: number): number[] {
  return fs.readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(pgrp) === group && state !== 'Z' ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}

const commandLine = (pid: number) => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return `${pid} (gone)`;
  }
};

/**
 * docs/liquidity-provider-bot.md: `npx ferry lp --spread-bps 30` in the Ferry folder, stopped with SIGTERM. The
 * reader has the pid of what they started, `npx` (npm), which runs ferry under `sh -c` and does not pass the signal
 * on: the real npx runs here, in a stand-in clone (test/support/reader-folders.ts), and every process it started
 * must be gone after the signal.
 */
describe('npx ferry lp stopped by its pid', () => {
  let h: Harness;
  let reader: ReaderFolders;
  const started: number[] = [];

  beforeAll(async () => {
    h = await startHarness();
    reader = createReaderFolders();
  }, 120_000);
  afterAll(async () => {
    for (const group of started) {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // gone, as it should be
      }
    }
    await h?.close();
    reader?.remove();
  });

  it('exits with every process of its tree, after the bot says it stops', async () => {
    // The guide's MakerOne: fill address demo wallet 3, its anvil key.
    const lp = await h.createAccount(
      'liquidityProvider',
      'MakerOne',
      '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
    );
    const npx = spawn('npx', ['ferry', 'lp', '--spread-bps', '30'], {
      cwd: reader.ferry,
      detached: true, // its own process group: what it starts is found by the group
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        // A run of the suites under `npm test` must not look like npm running ferry itself.
        npm_lifecycle_script: undefined,
        ...reader.env,
        PATH: `${reader.bin}:${process.env.PATH ?? ''}`, // its npx: npm's, with a cache of its own
        FERRY_API_URL: h.baseUrl,
        FERRY_API_KEY: lp.apiKey,
        LP_PRIVATE_KEY: ANVIL_KEYS[3],
        DATA_DIR: h.dataDir,
        LOG_FORMAT: 'json',
        LOG_LEVEL: 'info',
      },
    });
    const group = npx.pid ?? 0;
    started.push(group);
    let output = '';
    npx.stdout.on('data', (chunk) => {
      output += chunk;
    });
    npx.stderr.on('data', (chunk) => {
      output += chunk;
    });
    for (let waited = 0; !output.includes('liquidity provider bot started'); waited += 100) {
      if (waited > 60_000 || npx.exitCode !== null) throw new Error(`ferry lp did not start:\n${output}`);
      await sleep(100);
    }
    const tree = groupMembers(group);
    // npm names itself `npm exec …`; the bot is node running the linked bin/ferry.js.
    const bot = tree.find((pid) => /^node .*ferry lp/.test(commandLine(pid)));
    // npx, its shell and the bot: the bot is not the process the reader holds the pid of.
    expect(tree.length).toBeGreaterThanOrEqual(2);
    expect(bot).toBeDefined();
    expect(bot).not.toBe(group);

    process.kill(group, 'SIGTERM'); // `kill $PID`: the pid `npx … &` gave, not its group
    let left = tree;
    for (let waited = 0; waited < 10_000 && left.length > 0; waited += 100) {
      await sleep(100);
      left = tree.filter(alive);
    }
    expect(left.map(commandLine)).toEqual([]);
    expect(output).toMatch(/"signal":"SIGTERM".*stopping|stopping.*"signal":"SIGTERM"/);
  }, 120_000);
});
