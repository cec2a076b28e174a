import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChainError } from '../src/chains/chain-error.ts';
import { createChainRegistry, loadChainRegistryFile } from '../src/chains/chain-registry.ts';
import { RevertError } from '../src/chains/settlement/settlement-chain.ts';
import { ConfigError } from '../src/config/config.ts';
import { DemoError } from '../src/demo/demo-run.ts';
import { FerryError, isRetryable } from '../src/domain/ferry-error.ts';
import { RetryLaterError } from '../src/settlement/decision-executor.ts';
import { NonceRaceError } from '../src/store/engine/store-errors.ts';

const SRC = path.resolve(import.meta.dirname, '..', 'src');
const BUILT_IN_ERRORS =
  'Error|TypeError|RangeError|SyntaxError|ReferenceError|EvalError|URIError|AggregateError';
const EXTENDS_BUILT_IN = new RegExp(`\\bextends\\s+(?:${BUILT_IN_ERRORS})\\b`);

/**
 * The explorer is plain JS served to the browser: it cannot import the service's TypeScript, so its one error
 * class (the API's answer, read from the body) stands alone.
 */
const OUTSIDE_THE_FAMILY = new Set(['domain/ferry-error.ts', 'explorer/api.js']);

/**
 * The only places in src (tests and the browser's src/explorer aside) that throw a built-in error, each with why.
 * Everything else Ferry throws is a FerryError, so callers can read `retryable` and walk causes.
 */
const BUILT_IN_THROWS: Readonly<Record<string, string>> = {
  // Argument checks of pure helpers: RangeError is what a caller of such a function expects (tests assert it).
  'chains/settlement/prove-options.ts':
    'RangeError: a proof count or token-run count out of range (a caller bug)',
  'lp/pricing.ts': 'RangeError: a spread or token decimals out of range (a caller bug)',
};
const THROWS_BUILT_IN = new RegExp(`\\bthrow\\s+(?:new\\s+)?(?:${BUILT_IN_ERRORS})\\s*\\(`);

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
    const lz = new ChainError('relaying packet 0x01 failed', { cause });
    expect(lz).toBeInstanceOf(FerryError);
    expect(lz.message).toBe('relaying packet 0x01 failed');
    expect(lz.cause).toBe(cause);
    expect(lz.retryable).toBe(false);
    expect(new ChainError('no receipt', { cause, retryable: true }).retryable).toBe(true);

    const demo = new DemoError('step "swap" failed: boom', { cause });
    expect(demo).toBeInstanceOf(FerryError);
    expect(demo.name).toBe('DemoError');
    expect(demo.walk()).toBe(cause);
    expect(demo.retryable).toBe(false);
  });

  it('is what src throws: no built-in error outside the short list of deliberate exceptions', () => {
    const throwing = sourceFiles(SRC)
      .map((file) => path.relative(SRC, file).split(path.sep).join('/'))
      .filter((file) => !file.endsWith('.test.ts') && !file.startsWith('explorer/'))
      .filter((file) => THROWS_BUILT_IN.test(fs.readFileSync(path.join(SRC, file), 'utf8')));
    expect(throwing.filter((file) => !(file in BUILT_IN_THROWS))).toEqual([]);
    // A listed file that no longer throws one leaves the list.
    expect(Object.keys(BUILT_IN_THROWS).filter((file) => !throwing.includes(file))).toEqual([]);
  });

  it('makes the nonce race retryable, and registry problems configuration errors', () => {
    const race = new NonceRaceError('nonce allocation raced; retry');
    expect(race).toBeInstanceOf(FerryError);
    expect(race.retryable).toBe(true);
    expect(isRetryable(new Error('wrapped', { cause: race }))).toBe(true);
    expect(() => createChainRegistry({ chains: 'none' } as never)).toThrow(ConfigError);
    expect(() => loadChainRegistryFile('/nonexistent/chains.json')).toThrow(
      /^Cannot read chain registry \/nonexistent\/chains.json: /,
    );
    const unreadable = (() => {
      try {
        loadChainRegistryFile('/nonexistent/chains.json');
      } catch (error) {
        return error;
      }
    })();
    expect(unreadable).toBeInstanceOf(ConfigError);
    expect((unreadable as ConfigError).retryable).toBe(false);
    expect((unreadable as ConfigError).cause).toBeInstanceOf(Error);
  });
});
