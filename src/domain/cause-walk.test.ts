import { BaseError, InvalidParamsRpcError, RpcRequestError } from 'viem';
import { describe, expect, it } from 'vitest';
import { MAX_CAUSE_DEPTH, walkCauses } from './cause-walk.ts';
import { FerryError } from './ferry-error.ts';

class OuterError extends FerryError {
  override readonly name = 'OuterError';
  constructor(cause: unknown) {
    super('outer', { cause, retryable: false });
  }
}

class InnerError extends FerryError {
  override readonly name = 'InnerError';
  constructor(cause?: unknown) {
    super('inner', { cause, retryable: true });
  }
}

const rpcRefusal = () =>
  new RpcRequestError({
    body: { method: 'eth_getLogs' },
    error: { code: -32005, message: 'query returned more than 10000 results' },
    url: 'http://rpc.test',
  });

/** A chain of `length` plain errors, the deepest last: `errors[0]` wraps `errors[1]`, and so on. */
function chainOf(length: number): Error[] {
  const errors: Error[] = [];
  let cause: Error | undefined;
  for (let i = length - 1; i >= 0; i--) {
    cause = new Error(`level ${i}`, cause ? { cause } : undefined);
    errors.unshift(cause);
  }
  return errors;
}

describe('walkCauses', () => {
  // Ferry error → viem error → Ferry error → viem's InvalidParams → viem's RPC error.
  const rpc = rpcRefusal();
  const inner = new InnerError(new InvalidParamsRpcError(rpc));
  const mixed = new OuterError(new BaseError('viem wraps it', { cause: inner }));

  it('finds a cause nested through a mix of Ferry and viem errors', () => {
    expect(walkCauses(mixed, (e) => e instanceof InnerError)).toBe(inner);
    expect(walkCauses(mixed, (e) => e instanceof RpcRequestError)).toBe(rpc);
    // viem keeps the node's JSON-RPC error object as the RPC error's cause: the walk reaches it too.
    expect(
      walkCauses(
        mixed,
        (e) => (e as { message?: unknown }).message === 'query returned more than 10000 results',
      ),
    ).toBe(rpc.cause);
    expect(walkCauses(mixed, (e) => e instanceof RangeError)).toBeNull();
    // The error itself is the first one looked at.
    expect(walkCauses(mixed, (e) => e instanceof OuterError)).toBe(mixed);
  });

  it('without a predicate, answers the deepest cause (the error itself when it has none)', () => {
    expect(walkCauses(mixed)).toBe(rpc.cause);
    expect(walkCauses(mixed)).toEqual({ code: -32005, message: 'query returned more than 10000 results' });
    expect(mixed.walk()).toBe(rpc.cause);
    const alone = new Error('alone');
    expect(walkCauses(alone)).toBe(alone);
    expect(mixed.walk((e) => e instanceof InnerError)).toBe(inner);
  });

  it('walks no deeper than MAX_CAUSE_DEPTH errors', () => {
    const within = chainOf(MAX_CAUSE_DEPTH);
    const deepest = within.at(-1);
    expect(walkCauses(within[0], (e) => e === deepest)).toBe(deepest);
    expect(walkCauses(within[0])).toBe(deepest);

    const beyond = chainOf(MAX_CAUSE_DEPTH + 1);
    expect(walkCauses(beyond[0], (e) => e === beyond.at(-1))).toBeNull();
    expect(walkCauses(beyond[0])).toBe(beyond[MAX_CAUSE_DEPTH - 1]);
  });

  it('ends on a cycle of causes, and at a cause that is not an object', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    a.cause = b;
    const seen: object[] = [];
    expect(
      walkCauses(a, (e) => {
        seen.push(e);
        return false;
      }),
    ).toBeNull();
    expect(seen).toHaveLength(MAX_CAUSE_DEPTH);

    const worded = new Error('wrapped', { cause: 'a string' });
    expect(walkCauses(worded)).toBe(worded);
    expect(walkCauses('not an error')).toBeNull();
    expect(walkCauses(null, () => true)).toBeNull();
  });
});
