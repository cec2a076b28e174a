import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createPeriodicJob } from './periodic-job.ts';

describe('createPeriodicJob', () => {
  it('never overlaps runs, retries after a failure, and stop waits for the run under way', async () => {
    let active = 0;
    let maxActive = 0;
    let runs = 0;
    const job = createPeriodicJob({
      name: 'test job',
      intervalMs: 1,
      firstRunMs: 0,
      log: pino({ level: 'silent' }),
      run: async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        runs++;
        await new Promise((resolve) => setTimeout(resolve, 5));
        active--;
        if (runs === 1) throw new Error('first run fails');
        return runs;
      },
    });
    const direct = [job.runOnce(), job.runOnce()];
    expect(direct[0]).toBe(direct[1]);
    await expect(direct[0]).rejects.toThrow('first run fails');
    job.start();
    while (runs < 4) await new Promise((resolve) => setTimeout(resolve, 2));
    await job.stop();
    const after = runs;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(runs).toBe(after);
    expect(active).toBe(0);
    expect(maxActive).toBe(1);
  });
});
