import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';
import { type LogFormatSetting, resolveLogFormat } from './log-format.ts';
import { loggableError } from './loggable-error.ts';

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

// Control characters (newlines included) from request data must not forge log lines or drive the terminal.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly what it replaces
const CONTROL_ALL = /[\u0000-\u001f\u007f-\u009f]/g;

/** Escapes control characters as \uXXXX, leaving the rest of the text as it is. */
function clean(text: string): string {
  return text.replace(CONTROL_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A value as `key=value` shows it: strings bare unless they hold spaces or control characters, else as JSON. */
function show(value: unknown): string {
  if (typeof value === 'string')
    return /[\s"=]/.test(value) || CONTROL.test(value) ? JSON.stringify(value) : value;
  return JSON.stringify(value) ?? String(value);
}

/**
 * A logged error: its stack on its own indented lines (the message is in the stack's first line), then its other
 * fields (e.g. `code`); an `err` without a stack is shown as a field.
 */
function errorParts(err: unknown): { fields: string[]; lines: string[] } {
  if (err === undefined) return { fields: [], lines: [] };
  const stack = typeof err === 'object' && err !== null ? (err as { stack?: unknown }).stack : undefined;
  if (typeof stack !== 'string') return { fields: [`err=${show(err)}`], lines: [] };
  const rest = Object.entries(err as Record<string, unknown>)
    .filter(([key, value]) => !['stack', 'message', 'type'].includes(key) && value !== undefined)
    .map(([key, value]) => `err.${key}=${show(value)}`);
  return { fields: rest, lines: stack.split('\n').map((line) => `    ${clean(line.trimStart())}`) };
}

/**
 * One pino JSON line as `HH:MM:SS.mmm LEVEL message key=value …` (UTC), with an error's stack below it. A line
 * that is not a pino entry is passed through as it is. Redaction happened before: pino serialises first.
 */
export function formatLogLine(line: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    parsed = null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    const text = clean(line.replace(/\n$/, ''));
    return `${text}\n`;
  }
  const entry = parsed as Record<string, unknown>;
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 23) : '';
  const level = LEVELS[entry.level as number] ?? String(entry.level);
  const fields = Object.entries(entry)
    .filter(([key, value]) => !HIDDEN.has(key) && key !== 'err' && value !== undefined)
    .map(([key, value]) => `${key}=${show(value)}`);
  const err = errorParts(entry.err);
  const head = [time, level, clean(String(entry.msg ?? '')), ...fields, ...err.fields]
    .filter((part) => part !== '')
    .join(' ');
  return `${[head, ...err.lines].join('\n')}\n`;
}

/** A pino destination that writes readable lines to `out` (process.stdout by default). */
export function prettyLogStream(out: NodeJS.WritableStream = process.stdout): DestinationStream {
  // As pino's own destination does: a reader that went away (`ferry start | head`) does not crash the process.
  out.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') process.emitWarning(`log output failed: ${error.message}`);
  });
  return { write: (line: string) => void out.write(formatLogLine(line)) };
}

/** Every Ferry process's logger (API, worker, LP bot): the same options, in the format `format` resolves to. */
/** Every logged error passes loggableError: no RPC URL (it may carry a provider key) and no raw transaction. */
export function processLoggerOptions(options: LoggerOptions): LoggerOptions {
  return { ...options, serializers: { err: loggableError, ...options.serializers } };
}

export function createProcessLogger(options: LoggerOptions, format: LogFormatSetting): Logger {
  const withErrors = processLoggerOptions(options);
  return resolveLogFormat(format, process.stdout.isTTY === true) === 'pretty'
    ? pino(withErrors, prettyLogStream())
    : pino(withErrors);
}
