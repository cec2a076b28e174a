import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Suites that run `bin/ferry.js` run the compiled CLI: rebuild it first when a source changed since the last
 * build (a fresh clone's `npm install` built it already, so this is usually a quick check).
 */
export default function setup(): void {
  const script = fileURLToPath(new URL('../../scripts/build.mjs', import.meta.url));
  execFileSync(process.execPath, [script, '--if-stale'], { stdio: 'inherit' });
}
