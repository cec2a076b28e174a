/** LOG_FORMAT's values: `json`, one JSON object per line (collectors); `pretty`, one readable line per entry. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormatSetting = (typeof LOG_FORMATS)[number];
export type LogFormat = Exclude<LogFormatSetting, 'auto'>;

export function isLogFormatSetting(value: string): value is LogFormatSetting {
  return (LOG_FORMATS as readonly string[]).includes(value);
}

/** `auto` picks pretty on a terminal and JSON everywhere else (files, pipes, containers). */
export function resolveLogFormat(setting: LogFormatSetting, isTty: boolean): LogFormat {
  if (setting !== 'auto') return setting;
  return isTty ? 'pretty' : 'json';
}
