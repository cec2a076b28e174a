import { describe, expect, it } from 'vitest';
import { startedByNpm } from './npm-parent.ts';

describe('startedByNpm', () => {
  it('is true for the ferry commands npm runs: npx ferry …, npm start', () => {
    expect(startedByNpm({ npm_lifecycle_script: 'ferry lp --spread-bps 30' })).toBe(true);
    expect(startedByNpm({ npm_lifecycle_script: "'ferry'" })).toBe(true); // npx (npm 11): the command, quoted
    expect(startedByNpm({ npm_lifecycle_script: 'node bin/ferry.js start' })).toBe(true);
    expect(startedByNpm({ npm_lifecycle_script: 'node ./bin/ferry.js worker' })).toBe(true);
  });

  it('is false outside npm and for other npm scripts, whose variables a ferry they start inherits', () => {
    expect(startedByNpm({})).toBe(false);
    expect(startedByNpm({ npm_lifecycle_script: 'vitest run' })).toBe(false);
    expect(startedByNpm({ npm_lifecycle_script: 'tsx bench/run.ts' })).toBe(false);
    expect(startedByNpm({ npm_lifecycle_script: 'ferryman go' })).toBe(false);
    expect(startedByNpm({ npm_lifecycle_script: "'ferryman'" })).toBe(false);
  });
});
