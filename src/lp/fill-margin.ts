/**
 * How close to an order's fillDeadline the reference bot still fills (seconds of output-chain time). Kept apart
 * from lp-bot.ts so the CLI can show the default without loading the bot and viem.
 */
export const DEFAULT_FILL_MARGIN_SECONDS = 60;
