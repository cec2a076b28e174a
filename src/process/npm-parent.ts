/**
 * npm runs `npx ferry …` and `npm start` as `npm → sh -c "<command>" → node`. Stopped by its pid with SIGTERM,
 * npm passes the signal to the shell, the shell exits without passing it on, and ferry is left running under
 * init (npm 11, dash): the reader who `kill`s the pid `npx ferry lp … &` gave them stops nothing. So a ferry that
 * npm started takes the loss of its parent as the SIGTERM it never got, and stops the way that signal stops it.
 *
 * Only then: a ferry started directly (a service manager, `node bin/ferry.js … &` in a script that then exits)
 * may well outlive its parent on purpose.
 */

/**
 * Whether npm started this process to run a ferry command: npm names the command it runs in
 * `npm_lifecycle_script` (`'ferry'` for `npx ferry lp …`, the arguments passed apart, `node bin/ferry.js start` for `npm start`). Other npm
 * scripts (`npm test` running suites that start ferry) pass the variable on too, and do not count.
 */
export function startedByNpm(env: NodeJS.ProcessEnv): boolean {
  const script = env.npm_lifecycle_script?.trim() ?? '';
  return /^('ferry'|ferry|node\s+(\S*\/)?bin\/ferry\.js)(\s|$)/.test(script);
}

/**
 * When npm started this process, watches its parent (the shell npm runs it in) and sends this process SIGTERM once
 * the parent is gone, so whatever the command does on SIGTERM (finish the pass, close the database) runs. The
 * watch never keeps the process alive.
 */
export function stopWithNpmParent(env: NodeJS.ProcessEnv = process.env, intervalMs = 250): void {
  if (!startedByNpm(env)) return;
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    // A command that stops on SIGTERM gets the signal; one that does not (`ferry demo`) exits as SIGTERM would end
    // it, but through `exit`, whose handlers still stop its child processes (the devnets' anvils).
    if (process.listenerCount('SIGTERM') > 0) process.kill(process.pid, 'SIGTERM');
    else process.exit(143);
  }, intervalMs);
  watch.unref();
}
