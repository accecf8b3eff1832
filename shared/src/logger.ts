import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';
import type { LogItemExtraInput, LogItemMessage } from '@aws-lambda-powertools/logger/types';
import type { Log } from './ports/logger';

/**
 * Correlation keys for every log line written while one unit of work runs (a webhook delivery, one queue
 * record, one API request). Powertools' own temporary keys are scoped to the Lambda invocation, but a
 * worker invocation processes a batch of records concurrently, so each record gets its own async scope here
 * and the keys follow it into the agent, the tools and the adapters without being passed around.
 */
const scope = new AsyncLocalStorage<Record<string, string>>();

/** Runs `fn` with these keys (added to any outer ones) on every log line it writes. */
export function withLogContext<T>(keys: Record<string, string | undefined>, fn: () => T): T {
  const defined = Object.fromEntries(Object.entries(keys).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
  return scope.run({ ...scope.getStore(), ...defined }, fn);
}

/**
 * Adds keys to the current scope once they are known (the conversation id is found after the event is
 * parsed). Outside a scope it does nothing: there is no unit of work to describe.
 */
export function addLogContext(keys: Record<string, string | undefined>): void {
  const store = scope.getStore();
  if (!store) return;
  for (const [k, v] of Object.entries(keys)) if (v !== undefined) store[k] = v;
}

export function currentLogContext(): Readonly<Record<string, string>> | undefined {
  return scope.getStore();
}

class CorrelatedLogger extends Logger {
  protected override processLogItem(level: number, input: LogItemMessage, extra: LogItemExtraInput): void {
    // Below the level nothing is printed (no log buffer is configured): skip the copy of the context.
    if (level < this.level) return;
    const keys = scope.getStore();
    super.processLogItem(level, input, keys ? ([...extra, { ...keys }] as LogItemExtraInput) : extra);
  }
}

/**
 * Structured JSON logs (Powertools). Secrets are never passed to the logger; message bodies are logged
 * only as short previews at debug level.
 */
export function makeLogger(serviceName: string, level: string): Logger & Log {
  return new CorrelatedLogger({ serviceName, logLevel: level as 'INFO' }) as Logger & Log;
}

export function preview(text: string, max = 40): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
