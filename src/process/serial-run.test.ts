import { describe, expect, it } from 'vitest';
import { createSerialRun } from './serial-run.ts';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('createSerialRun', () => {
  it('never overlaps runs, and folds requests made during a run into exactly one more', async () => {
    let active = 0;
    let maxActive = 0;
    let runs = 0;
    const run = createSerialRun(
      async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        runs++;
        await tick();
        active--;
      },
      () => {},
    );
    run.request();
    for (let i = 0; i < 10; i++) run.request();
    expect(run.busy).toBe(true);
    while (run.busy) await tick();
    expect(maxActive).toBe(1);
    expect(runs).toBe(2);
    expect(run.busy).toBe(false);
  });

  it('hands a failed run to onError and runs again on the next request', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const run = createSerialRun(
      async () => {
        calls++;
        if (calls === 1) throw new Error('boom');
      },
      (error) => errors.push(error),
    );
    run.request();
    await tick();
    run.request();
    await tick();
    expect(calls).toBe(2);
    expect(errors).toHaveLength(1);
  });

  it('starts nothing after stop', async () => {
    let calls = 0;
    const run = createSerialRun(
      async () => {
        calls++;
      },
      () => {},
    );
    await run.stop();
    run.request();
    expect(run.busy).toBe(false);
    expect(calls).toBe(0);
  });
});
