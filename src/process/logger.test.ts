import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { resolveLogFormat } from './log-format.ts';
import { formatLogLine, prettyLogStream } from './logger.ts';

function capture() {
  const lines: string[] = [];
  const out = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, out };
}

describe('the pretty log stream', () => {
  it('writes a pino entry as time, level, message and its fields, on one line', () => {
    const { lines, out } = capture();
    const log = pino({ level: 'info', timestamp: () => ',"time":1795381022081' }, prettyLogStream(out));
    log.info({ chainId: 900001, rpcUrl: 'http://127.0.0.1:8545', note: 'two words' }, 'anvil started');
    expect(lines).toEqual([
      '20:57:02.081 INFO  anvil started chainId=900001 rpcUrl=http://127.0.0.1:8545 note="two words"\n',
    ]);
  });

  it("shows an error's stack on indented lines below the entry", () => {
    const { lines, out } = capture();
    const log = pino({ level: 'info' }, prettyLogStream(out));
    log.error({ err: new Error('rpc down'), chain: 'devnet-a' }, 'pass failed');
    const [text] = lines;
    const [head, first, second] = (text ?? '').split('\n');
    expect(head).toMatch(/^\d\d:\d\d:\d\d\.\d{3} ERROR pass failed chain=devnet-a$/);
    expect(first).toBe('    Error: rpc down');
    expect(second).toMatch(/^ {4}at /);
  });

  it('keeps redaction: the header pino censored stays censored', () => {
    const { lines, out } = capture();
    const log = pino({ redact: { paths: ['key'], censor: '[redacted]' } }, prettyLogStream(out));
    log.info({ key: 'secret-api-key' }, 'request');
    expect(lines[0]).toContain('key=[redacted]');
    expect(lines[0]).not.toContain('secret-api-key');
  });

  it('passes a line that is not a JSON object through, with control characters escaped', () => {
    expect(formatLogLine('plain text')).toBe('plain text\n');
    expect(formatLogLine('null')).toBe('null\n');
    expect(formatLogLine('bell\u0007')).toBe('bell\\u0007\n');
  });

  it('escapes control characters from request data: one entry stays one line, no terminal escapes', () => {
    const { lines, out } = capture();
    const log = pino({ level: 'info' }, prettyLogStream(out));
    log.info({ path: '/x\n12:00:00.000 INFO  forged' }, 'bad\u001b[31m path\nsecond line');
    expect(lines).toHaveLength(1);
    const [text] = lines;
    expect(text?.split('\n')).toHaveLength(2);
    expect(text).not.toContain('\u001b');
    expect(text).toContain('bad\\u001b[31m path\\u000asecond line');
    expect(text).toContain('path="/x\\n12:00:00.000 INFO  forged"');
  });

  it('shows an err without a stack as a field, and the fields of one with a stack', () => {
    const { lines, out } = capture();
    const log = pino({ level: 'info' }, prettyLogStream(out));
    log.warn({ err: 'boom' }, 'plain');
    log.warn({ err: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) }, 'coded');
    expect(lines[0]).toMatch(/ WARN {2}plain err=boom\n$/);
    expect(lines[1]?.split('\n')[0]).toMatch(/ WARN {2}coded err\.code=ECONNREFUSED$/);
  });

  it('auto is pretty on a terminal and JSON otherwise; an explicit format wins', () => {
    expect(resolveLogFormat('auto', true)).toBe('pretty');
    expect(resolveLogFormat('auto', false)).toBe('json');
    expect(resolveLogFormat('json', true)).toBe('json');
    expect(resolveLogFormat('pretty', false)).toBe('pretty');
  });
});
