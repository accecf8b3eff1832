import pRetry from 'p-retry';
import { isAppError, UpstreamError } from '../errors';

/**
 * How the tool groups call a provider so the agent gets errors it can act on, and so a write is never
 * repeated blindly. Read retries live in the adapters (429/5xx with backoff); here are the two things the
 * adapters cannot decide: what to tell the agent, and whether a failed write might still have happened.
 */
export type ErrorHints = Partial<Record<string, string>>;

/**
 * Adds what the agent can do about a provider error to its message. The error object itself is kept (its
 * class, code and retryable flag are what the executor and the API edge act on); it was created for this
 * one call by the adapter, so nothing else sees the change.
 */
export function explain(e: unknown, hints: ErrorHints = {}): unknown {
  if (!isAppError(e)) return e;
  const hint = hints[e.code] ?? DEFAULT_HINTS[e.code];
  if (hint && !e.message.endsWith(hint)) e.message = `${e.message.replace(/\.?$/, '.')} ${hint}`;
  return e;
}

const DEFAULT_HINTS: Record<string, string> = {
  upstream_auth_failed: 'The assistant’s access to this service is not working; tell the team to check it.',
  rate_limited: 'The service is rate-limiting us; try again in a minute.',
  upstream_malformed: 'The service sent an answer we could not read; try again later or tell the team.',
  upstream_unreachable: 'The service could not be reached; try again later.',
};

/** Runs a read and re-words its failure. */
export async function readCall<T>(fn: () => Promise<T>, hints?: ErrorHints): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw explain(e, hints);
  }
}

/**
 * A failed write may still have happened when the request reached the provider and the answer was lost
 * (timeout, connection reset), the provider failed midway (5xx), or it answered something we could not
 * parse. The executor then leaves the action EXECUTING so `reconcile` asks the provider instead of resending.
 */
export function mayHaveHappened(e: unknown): boolean {
  if (!isAppError(e)) return true;
  if (e.code === 'upstream_unreachable' || e.code === 'upstream_malformed') return true;
  return e instanceof UpstreamError && e.code === 'upstream_failed' && e.retryable;
}

export interface WriteRetryOptions {
  retries?: number;
  minDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * Runs a write. A rate-limit answer (429) means the provider refused before doing anything, so that alone
 * is retried with backoff; anything that may have reached the provider is marked `outcomeUnknown`.
 */
export async function writeCall<T>(
  fn: () => Promise<T>,
  hints?: ErrorHints,
  retry: WriteRetryOptions = {},
): Promise<T> {
  try {
    return await pRetry(fn, {
      retries: retry.retries ?? 2,
      minTimeout: retry.minDelayMs ?? 1_000,
      maxTimeout: retry.maxDelayMs ?? 4_000,
      shouldRetry: ({ error }) => isAppError(error) && error.code === 'rate_limited',
    });
  } catch (e) {
    const err = explain(e, hints);
    if (mayHaveHappened(e) && typeof err === 'object' && err !== null)
      Object.assign(err, { outcomeUnknown: true });
    throw err;
  }
}
