import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createPeriodicJob } from './periodic-job.ts';

/** A job (a minute's interval) whose every run waits for `release()`: the test decides when a run ends. */
function blockingJob(name: string) {
  let runs = 0;
  let release: () => void = () => {};
  const job = createPeriodicJob({
    name,
    intervalMs: 60_000,
    log: pino({ level: 'silent' }),
    run: async () => {
      runs++;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    },
  });
  return {
    job,
    runs: () => runs,
    release: () => release(),
    until: async (n: number) => {
      while (runs < n) await new Promise((resolve) => setTimeout(resolve, 2));
    },
  };
}

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

  it('a wake runs at once instead of after the interval; wakes during a run collapse into one more run', async () => {
    const { job, runs, release, until } = blockingJob('woken job');
    job.wake();
    job.start();
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Ignored while stopped; started, the first run is an interval away.
    expect(runs()).toBe(0);
    job.wake();
    await until(1);
    job.wake();
    job.wake();
    job.wake();
    release();
    await until(2);
    release();
    await new Promise((resolve) => setTimeout(resolve, 30));
    // Three wakes during the first run asked for one run after it, and nothing after that.
    expect(runs()).toBe(2);
    await job.stop();
  });

  it('wakes however frequent start runs at most once per minGapMs', async () => {
    const starts: number[] = [];
    const job = createPeriodicJob({
      name: 'gapped job',
      intervalMs: 60_000,
      minGapMs: 100,
      log: pino({ level: 'silent' }),
      run: async () => {
        starts.push(Date.now());
      },
    });
    job.start();
    const wakes = setInterval(() => job.wake(), 1);
    await new Promise((resolve) => setTimeout(resolve, 450));
    clearInterval(wakes);
    await job.stop();
    // ~450 wakes: at most one run per 100 ms (plus the first), and no two runs closer than the gap.
    expect(starts.length).toBeGreaterThanOrEqual(2);
    expect(starts.length).toBeLessThanOrEqual(6);
    for (let i = 1; i < starts.length; i++)
      expect((starts[i] ?? 0) - (starts[i - 1] ?? 0)).toBeGreaterThanOrEqual(99);
  });

  it('a wake during a direct runOnce is honoured by a fresh run after it', async () => {
    const { job, runs, release, until } = blockingJob('direct job');
    job.start();
    const direct = job.runOnce();
    job.wake();
    release();
    await direct;
    await until(2);
    release();
    await job.stop();
    expect(runs()).toBe(2);
  });

  it('runAfter waits out a run under way and answers a run of its own, where runOnce joins it', async () => {
    const { job, runs, release, until } = blockingJob('run after');
    const underWay = job.runOnce();
    await until(1);
    expect(job.runOnce()).toBe(underWay);
    const after = job.runAfter();
    release();
    await underWay;
    await until(2);
    release();
    await after;
    expect(runs()).toBe(2);
  });
});
