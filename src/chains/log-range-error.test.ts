import { HttpRequestError, InvalidParamsRpcError, RpcRequestError, TimeoutError } from 'viem';
import { describe, expect, it } from 'vitest';
import { FerryError } from '../domain/ferry-error.ts';
import { isLogRangeTooLarge, LogRangeTooLargeError } from './log-range-error.ts';

const rpcError = (code: number, message: string) =>
  new RpcRequestError({ body: { method: 'eth_getLogs' }, error: { code, message }, url: 'http://rpc.test' });

describe('isLogRangeTooLarge', () => {
  it.each([
    'query returned more than 10000 results',
    'block range is too large',
    'eth_getLogs block range too large, range: 5001, max: 5000',
    'exceed maximum block range: 2000',
    'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range',
    'eth_getLogs is limited to a 1000 blocks range',
    'range too large',
    'query exceeds max results 20000, retry with the range 24383075-24383096',
  ])('recognises "%s"', (message) => {
    expect(isLogRangeTooLarge(rpcError(-32000, message))).toBe(true);
    // viem wraps the request error once more (InvalidParams, Unknown...): the RPC's words are still found.
    expect(isLogRangeTooLarge(new InvalidParamsRpcError(rpcError(-32602, message)))).toBe(true);
  });

  it('recognises the limit-exceeded code whatever the words', () => {
    expect(isLogRangeTooLarge(rpcError(-32005, 'try again'))).toBe(true);
  });

  it('does not mistake an outage or an unrelated error for a range refusal', () => {
    const dropped = new HttpRequestError({
      url: 'http://rpc.test',
      body: { method: 'eth_getLogs', params: [{ fromBlock: '0x1', toBlock: '0x7d0' }] },
      details: 'other side closed',
    });
    const unavailable = new HttpRequestError({
      url: 'http://rpc.test',
      body: { method: 'eth_getLogs' },
      status: 503,
      details: 'Service Unavailable',
    });
    expect(isLogRangeTooLarge(dropped)).toBe(false);
    expect(isLogRangeTooLarge(unavailable)).toBe(false);
    expect(
      isLogRangeTooLarge(new TimeoutError({ body: { method: 'eth_getLogs' }, url: 'http://rpc.test' })),
    ).toBe(false);
    expect(isLogRangeTooLarge(rpcError(-32000, 'header not found'))).toBe(false);
    expect(isLogRangeTooLarge(new Error('fetch failed'))).toBe(false);
    expect(isLogRangeTooLarge(null)).toBe(false);
  });
});

describe('LogRangeTooLargeError', () => {
  it('is a non-retryable Ferry error whose walk reaches the RPC refusal', () => {
    const refusal = rpcError(-32005, 'query returned more than 10000 results');
    const error = new LogRangeTooLargeError('devnet-a', 10n, 20n, {
      cause: new InvalidParamsRpcError(refusal),
    });
    expect(error).toBeInstanceOf(FerryError);
    expect(error.name).toBe('LogRangeTooLargeError');
    expect(error.message).toBe('chain devnet-a: the RPC refused eth_getLogs for blocks 10-20 as too large');
    expect(error.retryable).toBe(false);
    expect(error.walk((e) => e instanceof RpcRequestError)).toBe(refusal);
    // Wrapped in Ferry's own error, the refusal is still recognised.
    expect(isLogRangeTooLarge(error)).toBe(true);
  });
});
