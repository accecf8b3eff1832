import { isAppError } from '../errors';

/**
 * Failures a later attempt may not meet: our retryable errors, and AWS SDK / network errors that are
 * throttling, server-side or a dropped connection (after the SDK's own retries). The worker rethrows them so
 * SQS redelivers the event and the durable run continues; anything else ends the run with a message.
 */
export function isTransient(e: unknown): boolean {
  if (isAppError(e)) return e.retryable;
  if (typeof e !== 'object' || e === null) return false;
  const err = e as {
    name?: string;
    code?: string;
    $fault?: string;
    $retryable?: unknown;
    $metadata?: { httpStatusCode?: number };
  };
  return (
    err.$fault === 'server' ||
    err.$retryable !== undefined ||
    (err.$metadata?.httpStatusCode ?? 0) >= 500 ||
    /Throttl|ProvisionedThroughputExceeded|RequestLimitExceeded|TooManyRequests|ServiceUnavailable|InternalServerError|TimeoutError/.test(
      err.name ?? '',
    ) ||
    ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN'].includes(err.code ?? '')
  );
}
