import { describe, expect, it } from 'vitest';
import { ChainError } from '../chains/chain-error.ts';
import { CliError } from '../cli/cli-error.ts';
import { ConfigError } from '../config/config.ts';
import { DemoError } from '../demo/demo-run.ts';
import { NonceRaceError, StoreUnavailableError } from '../store/engine/store-errors.ts';
import { EXIT_FAILURE, EXIT_RETRYABLE, exitCodeFor } from './exit-code.ts';

describe('exitCodeFor', () => {
  it('is 75 (EX_TEMPFAIL) for a retryable error and 1 for any other', () => {
    expect(EXIT_RETRYABLE).toBe(75);
    expect(EXIT_FAILURE).toBe(1);
    expect(exitCodeFor(new NonceRaceError('nonce allocation raced; retry'))).toBe(75);
    expect(exitCodeFor(new StoreUnavailableError(new Error('ECONNREFUSED')))).toBe(75);
    expect(exitCodeFor(new ChainError('RPC did not answer', { retryable: true }))).toBe(75);
    expect(exitCodeFor(new ConfigError(['PORT must be an integer']))).toBe(1);
    expect(exitCodeFor(new ChainError('solc failed'))).toBe(1);
    expect(exitCodeFor(new Error('plain'))).toBe(1);
    expect(exitCodeFor('a string')).toBe(1);
    expect(exitCodeFor(undefined)).toBe(1);
  });

  it("walks causes to the first family error: a plain wrapper keeps it, a family one's own word wins", () => {
    const race = new NonceRaceError('nonce allocation raced; retry');
    expect(exitCodeFor(new Error('driver wrapped it', { cause: race }))).toBe(75);
    expect(exitCodeFor(new DemoError('step "fill" failed', { cause: race }))).toBe(1);
    expect(exitCodeFor(new DemoError('timed out', { retryable: true, cause: new Error('x') }))).toBe(75);
    // An operator command's one-line refusal is as retryable as what it says in one line.
    expect(
      exitCodeFor(new CliError('--rpc-url: unreachable', { cause: new StoreUnavailableError('x') })),
    ).toBe(75);
    expect(exitCodeFor(new CliError('--rpc-url is required'))).toBe(1);
  });
});
