import { Logger } from '@aws-lambda-powertools/logger';
import type { Log } from './ports/logger';

/**
 * Structured JSON logs (Powertools). Secrets are never passed to the logger; message bodies are logged
 * only as short previews at debug level.
 */
export function makeLogger(serviceName: string, level: string): Logger & Log {
  return new Logger({ serviceName, logLevel: level as 'INFO' }) as Logger & Log;
}

export function preview(text: string, max = 40): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
