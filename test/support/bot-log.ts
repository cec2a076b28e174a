import type { BotLog } from '../../src/lp/lp-bot-log.ts';

/** A reference bot's log that keeps every line (level, message, fields) for a test to read. */
export function recordingBotLog() {
  const lines: { level: string; msg: string; obj: any }[] = [];
  const at =
    (level: string) =>
    (obj: object, msg: string): void => {
      lines.push({ level, msg, obj });
    };
  const log: BotLog = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { log, lines };
}
