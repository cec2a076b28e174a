import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LayerZeroDevnetError } from '../src/chains/layerzero/lz-chain-client.ts';
import { RevertError } from '../src/chains/settlement/settlement-chain.ts';
import { ConfigError } from '../src/config/config.ts';
import { DemoError } from '../src/demo/demo-run.ts';
import { FerryError } from '../src/domain/ferry-error.ts';
import { RetryLaterError } from '../src/settlement/decision-executor.ts';

const SRC = path.resolve(import.meta.dirname, '..', 'src');
const BUILT_IN_ERRORS =
  'Error|TypeError|RangeError|SyntaxError|ReferenceError|EvalError|URIError|AggregateError';
const EXTENDS_BUILT_IN = new RegExp(`\\bextends\\s+(?:${BUILT_IN_ERRORS})\\b`);

/**
 * The explorer is plain JS served to the browser: it cannot import the service's TypeScript, so its one error
 * class (the API's answer, read from the body) stands alone.
 */
const OUTSIDE_THE_FAMILY = new Set(['domain/ferry-error.ts', 'explorer/api.js']);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|js)$/.test(entry.name) ? [full] : [];
  });
}

describe("Ferry's error family", () => {
  it('is one: no class in src extends a built-in error except FerryError itself', () => {
    const strays = sourceFiles(SRC)
      .map((file) => path.relative(SRC, file).split(path.sep).join('/'))
      .filter((file) => !OUTSIDE_THE_FAMILY.has(file))
      .filter((file) => EXTENDS_BUILT_IN.test(fs.readFileSync(path.join(SRC, file), 'utf8')));
    expect(strays).toEqual([]);
  });

  it('keeps the messages and says which errors may go otherwise when tried again', () => {
    const config = new ConfigError(['PORT must be an integer', 'HOST is empty']);
    expect(config).toBeInstanceOf(FerryError);
    expect(config.message).toBe('Invalid configuration:\n  - PORT must be an integer\n  - HOST is empty');
    expect(config.name).toBe('ConfigError');
    expect(config.retryable).toBe(false);

    const revert = new RevertError('Paused()');
    const later = new RetryLaterError('settle reverted', revert);
    expect(later).toBeInstanceOf(FerryError);
    expect(later.message).toBe('settle reverted');
    expect(later.retryable).toBe(true);
    expect(later.walk((e) => e instanceof RevertError)).toBe(revert);

    const cause = new Error('socket hang up');
    const lz = new LayerZeroDevnetError('relaying packet 0x01 failed', { cause });
    expect(lz).toBeInstanceOf(FerryError);
    expect(lz.message).toBe('relaying packet 0x01 failed');
    expect(lz.cause).toBe(cause);
    expect(lz.retryable).toBe(false);
    expect(new LayerZeroDevnetError('no receipt', { cause, retryable: true }).retryable).toBe(true);

    const demo = new DemoError('step "swap" failed: boom', { cause });
    expect(demo).toBeInstanceOf(FerryError);
    expect(demo.name).toBe('DemoError');
    expect(demo.walk()).toBe(cause);
    expect(demo.retryable).toBe(false);
  });
});
