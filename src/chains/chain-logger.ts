/** The slice of a pino logger the chain helpers use; pass a pino instance or leave it out. */
export interface ChainLogger {
  info(obj: Record<string, unknown>, msg?: string): void;
  warn?(obj: Record<string, unknown>, msg?: string): void;
}
