import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';

/** `json`: one JSON object per line (for collectors). `pretty`: one readable line per entry (for a terminal). */
export type LogFormat = 'json' | 'pretty';

/** `auto` picks pretty on a terminal and JSON everywhere else (files, pipes, containers). */
export function resolveLogFormat(setting: LogFormat | 'auto', isTty: boolean): LogFormat {
  if (setting !== 'auto') return setting;
  return isTty ? 'pretty' : 'json';
}

const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO ',
  40: 'WARN ',
  50: 'ERROR',
  60: 'FATAL',
};
/** Fields every entry has, or that the line's head already shows. */
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

/** A value as `key=value` shows it: strings bare unless they hold spaces, everything else as JSON. */
function show(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) ? JSON.stringify(value) : value;
  return JSON.stringify(value);
}

/** Shows the stack of a logged error on its own indented lines (the message is in the stack's first line). */
function errorLines(err: unknown): string[] {
  if (typeof err !== 'object' || err === null) return [];
  const stack = (err as { stack?: unknown }).stack;
  if (typeof stack !== 'string') return [];
  return stack.split('\n').map((line) => `    ${line.trimStart()}`);
}

/**
 * One pino JSON line as `HH:MM:SS.mmm LEVEL message key=value …` (UTC), with an error's stack below it. A line
 * that is not a pino entry is passed through as it is. Redaction happened before: pino serialises first.
 */
export function formatLogLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 23) : '';
  const level = LEVELS[entry.level as number] ?? String(entry.level);
  const fields = Object.entries(entry)
    .filter(([key, value]) => !HIDDEN.has(key) && key !== 'err' && value !== undefined)
    .map(([key, value]) => `${key}=${show(value)}`);
  const head = [time, level, String(entry.msg ?? ''), ...fields].filter((part) => part !== '').join(' ');
  return `${[head, ...errorLines(entry.err)].join('\n')}\n`;
}

/** A pino destination that writes readable lines to `out` (process.stdout by default). */
export function prettyLogStream(out: { write(text: string): unknown } = process.stdout): DestinationStream {
  return { write: (line: string) => void out.write(formatLogLine(line)) };
}

/** Every Ferry process's logger (API, worker, LP bot): the same options, in the format `format` resolves to. */
export function createProcessLogger(options: LoggerOptions, format: LogFormat | 'auto'): Logger {
  return resolveLogFormat(format, process.stdout.isTTY === true) === 'pretty'
    ? pino(options, prettyLogStream())
    : pino(options);
}
