import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createShutdownRegistry } from './shutdown-registry.ts';

describe('createShutdownRegistry', () => {
  it('closes newest first, once, and keeps closing past a failure', async () => {
    const shutdown = createShutdownRegistry(pino({ level: 'silent' }));
    const closed: string[] = [];
    shutdown.register('database', () => {
      closed.push('database');
    });
    shutdown.register('broken', () => {
      throw new Error('cannot close');
    });
    shutdown.register('server', async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      closed.push('server');
    });
    const first = shutdown.close();
    const second = shutdown.close();
    expect(second).toBe(first);
    await first;
    await shutdown.close();
    expect(closed).toEqual(['server', 'database']);
    expect(() => shutdown.register('late', () => {})).toThrow(/shutting down/);
  });
});
