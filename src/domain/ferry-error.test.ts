import { BaseError } from 'viem';
import { describe, expect, it } from 'vitest';
import { AppError, fieldError } from './app-error.ts';
import { FerryError } from './ferry-error.ts';

class RefusedError extends FerryError {
  override readonly name = 'RefusedError';
  constructor(details?: string, cause?: unknown) {
    super('the node refused it', { cause, details, retryable: false });
  }
}

class OutageError extends FerryError {
  override readonly name = 'OutageError';
  constructor() {
    super('the node is down', { retryable: true });
  }
}

describe('FerryError', () => {
  it('keeps its short message as the message, its name, details and cause', () => {
    const cause = new BaseError('rpc said no', { details: 'nonce too low' });
    const error = new RefusedError('nonce too low', cause);
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(FerryError);
    expect(error.name).toBe('RefusedError');
    expect(error.message).toBe('the node refused it');
    expect(error.shortMessage).toBe(error.message);
    expect(error.details).toBe('nonce too low');
    expect(error.cause).toBe(cause);
    expect(String(error.stack)).toContain('RefusedError: the node refused it');
  });

  it('has no own cause when given none', () => {
    const error = new RefusedError();
    expect(Object.hasOwn(error, 'cause')).toBe(false);
    expect(error.details).toBeUndefined();
    expect(error.walk()).toBe(error);
  });

  it('says whether trying again may help', () => {
    expect(new RefusedError().retryable).toBe(false);
    expect(new OutageError().retryable).toBe(true);
  });
});

describe('AppError in the family', () => {
  it('is a FerryError whose details are the fields at fault; code, status and headers as before', () => {
    const error = new AppError('RATE_LIMITED', 'slow down', [{ path: 'headers', message: 'too many' }], {
      'retry-after': '3',
    });
    expect(error).toBeInstanceOf(FerryError);
    expect(error.name).toBe('AppError');
    expect(error.message).toBe('slow down');
    expect(error.shortMessage).toBe('slow down');
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.statusCode).toBe(429);
    expect(error.details).toEqual([{ path: 'headers', message: 'too many' }]);
    expect(error.headers).toEqual({ 'retry-after': '3' });
  });

  it('is retryable for the "try again later" codes only', () => {
    expect(new AppError('RATE_LIMITED', 'x').retryable).toBe(true);
    expect(new AppError('STREAM_LIMIT', 'x').retryable).toBe(true);
    expect(new AppError('SERVICE_UNAVAILABLE', 'x').retryable).toBe(true);
    expect(new AppError('CONFLICT', 'x').retryable).toBe(false);
    expect(new AppError('VALIDATION_ERROR', 'x').retryable).toBe(false);
    expect(new AppError('INTERNAL_ERROR', 'x').retryable).toBe(false);
  });

  it('carries a cause, which walk reaches', () => {
    const refused = new RefusedError();
    const error = fieldError('CONFLICT', 'body.quoteRequestId', 'already quoted', { cause: refused });
    expect(error.cause).toBe(refused);
    expect(error.details).toEqual([{ path: 'body.quoteRequestId', message: 'already quoted' }]);
    expect(error.walk((e) => e instanceof RefusedError)).toBe(refused);
    expect(Object.hasOwn(new AppError('CONFLICT', 'x'), 'cause')).toBe(false);
  });
});
