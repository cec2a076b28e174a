/**
 * The pino-compatible subset the bot logs through. lp-bot.ts takes it and hands it to every part of the bot, so it
 * sits below them all.
 */
export interface BotLog {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}
