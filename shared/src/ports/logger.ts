/** The slice of a structured logger the use cases need (Powertools Logger satisfies it). */
export interface Log {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export const silentLog: Log = { debug() {}, info() {}, warn() {}, error() {} };
