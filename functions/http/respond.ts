import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { isAppError } from '../../shared/src/errors';
import type { Log } from '../../shared/src/ports/logger';

/** For the small non-Hono webhook functions (kept tiny for a fast cold start): JSON in, JSON out. */
export function json(statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

export function rawBody(event: APIGatewayProxyEventV2): string {
  if (!event.body) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

export function lowerHeaders(event: APIGatewayProxyEventV2): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(event.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
}

/** Typed errors keep their status; anything else is a retryable 503 (the provider retries), logged. */
export function errorResponse(e: unknown, log?: Log): APIGatewayProxyStructuredResultV2 {
  if (isAppError(e)) return json(e.status, { error: { code: e.code, message: e.message } });
  log?.error('webhook.unhandled', { error: String(e) });
  return json(503, {
    error: { code: 'unavailable', message: 'Temporarily unable to accept the delivery; please retry.' },
  });
}
