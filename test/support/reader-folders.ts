import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');

export interface ReaderFolders {
  /** Holds the clone and whatever folders the docs have the reader make beside it (`../my-ferry-app`). */
  root: string;
  /** The reader's Ferry clone: this repository's package, CLI, SDK and installed packages, nothing else. */
  ferry: string;
  /** Put first on PATH: the `npm` whose registry is this repository's node_modules. */
  bin: string;
  /** What npm needs in the environment. */
  env: Record<string, string>;
  remove(): void;
}

/**
 * The folders a reader of the docs works in. The clone is a folder of links to this repository (`bin`, `sdk`,
 * `node_modules`; its package.json, so the real `npx ferry` runs this CLI), so what the docs have the reader create
 * there never lands in the repository. The docs' commands run as written with the real npm and npx; only the
 * registry is stood in for: `npm install NAME` of a package this repository has installed installs that copy, so
 * no network is needed. `npm pack ./sdk` is what the docs say to use for `@ferry/client` anyway.
 */
export function createReaderFolders(): ReaderFolders {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-docs-reader-'));
  const ferry = path.join(root, 'ferry');
  fs.mkdirSync(ferry);
  for (const entry of ['bin', 'sdk', 'node_modules'])
    fs.symlinkSync(path.join(repoRoot, entry), path.join(ferry, entry));
  // npx links the clone into its cache and runs its `prepare` (the build) first: the suite's setup built it already.
  const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
  delete pkg.scripts.prepare;
  fs.writeFileSync(path.join(ferry, 'package.json'), JSON.stringify(pkg, null, 2));
  const bin = path.join(root, '.bin');
  fs.mkdirSync(bin);
  const realNpm = execFileSync('bash', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
  const installed = path.join(repoRoot, 'node_modules');
  fs.writeFileSync(
    path.join(bin, 'npm'),
    `#!/usr/bin/env bash
# npm with this repository's node_modules as its registry: \`npm install viem\` installs ${installed}/viem.
case "$1" in
  install|i|add)
    args=("$1"); shift
    for arg in "$@"; do
      if [[ "$arg" != -* && "$arg" != */* || "$arg" == @*/* && "$arg" != */*/* ]] && [ -d "${installed}/$arg" ]; then
        args+=("${installed}/$arg")
      else
        args+=("$arg")
      fi
    done
    exec "${realNpm}" "\${args[@]}" --prefer-offline --no-audit --no-fund ;;
  *) exec "${realNpm}" "$@" ;;
esac
`,
  );
  // npx links the clone into `<cache>/_npx` under a name made from its path: a cache of its own, not the user's,
  // keeps those links to deleted folders out of it. npm keeps the user's cache (the SDK's own dependencies).
  const realNpx = execFileSync('bash', ['-c', 'command -v npx'], { encoding: 'utf8' }).trim();
  fs.writeFileSync(
    path.join(bin, 'npx'),
    `#!/usr/bin/env bash\nnpm_config_cache="${path.join(root, '.npx-cache')}" exec "${realNpx}" "$@"\n`,
  );
  fs.chmodSync(path.join(bin, 'npm'), 0o755);
  fs.chmodSync(path.join(bin, 'npx'), 0o755);
  return {
    root,
    ferry,
    bin,
    env: { npm_config_update_notifier: 'false' },
    remove: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}
