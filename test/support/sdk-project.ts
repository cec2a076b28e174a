import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');

export interface ProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runProcess(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<ProcessResult> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd, env: { ...process.env, ...env }, timeout: 240_000, maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

export const npm = (args: string[], cwd: string) =>
  runProcess('npm', [...args, '--no-audit', '--no-fund'], cwd);

export interface SdkProject {
  dir: string;
  tarball: string;
}

/**
 * An integrator's project: an empty ES-module package with `npm pack ./sdk` installed the way docs/sdk.md says,
 * beside viem (and `extra` packages, e.g. `ws`, `@types/node`). Those come from this repository's node_modules
 * (their own dependencies resolve beside them), so no registry is needed; `@ferry/client` is the packed tarball.
 */
export async function createSdkProject(extra: string[] = []): Promise<SdkProject> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-sdk-consumer-'));
  const packed = await npm(
    ['pack', path.join(repoRoot, 'sdk'), '--pack-destination', dir, '--json'],
    repoRoot,
  );
  if (packed.code !== 0) throw new Error(`npm pack ./sdk failed:\n${packed.stderr}`);
  const [info] = JSON.parse(packed.stdout) as { filename: string }[];
  const tarball = path.join(dir, info!.filename);
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  const fromRepo = ['viem', ...extra].map((name) => path.join(repoRoot, 'node_modules', name));
  const installed = await npm(['install', '--prefer-offline', tarball, ...fromRepo], dir);
  if (installed.code !== 0) throw new Error(`npm install in ${dir} failed:\n${installed.stderr}`);
  return { dir, tarball };
}
