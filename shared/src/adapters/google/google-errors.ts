import type { z } from 'zod';
import {
  type AppError,
  ConflictError,
  describeZodIssues,
  ForbiddenError,
  isAppError,
  NotFoundError,
  UpstreamError,
  ValidationError,
} from '../../errors';

/**
 * Translates what the Google clients throw into our typed errors, so tools can tell the agent "not found",
 * "not allowed" or "try later" instead of leaking a GaxiosError. Each `@googleapis/*` package bundles its own
 * gaxios copy, so errors are recognised by shape (status, response.data), never by `instanceof`.
 */
interface GaxiosLike {
  status?: number;
  code?: string | number;
  message?: string;
  response?: { status?: number; data?: unknown };
}

const RATE_LIMIT_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'quotaExceeded']);

function googleReason(data: unknown): { message?: string; reason?: string; oauth?: string } {
  if (!data || typeof data !== 'object') return {};
  const d = data as {
    error?: string | { message?: string; errors?: { reason?: string }[] };
    error_description?: string;
  };
  if (typeof d.error === 'string') return { oauth: d.error, message: d.error_description };
  return { message: d.error?.message, reason: d.error?.errors?.[0]?.reason };
}

export function toGoogleError(e: unknown, what: string): AppError {
  if (isAppError(e)) return e;
  const err = (e ?? {}) as GaxiosLike;
  const status = err.response?.status ?? err.status;
  const { message, reason, oauth } = googleReason(err.response?.data);
  const detail = message ?? err.message ?? 'unknown error';
  // Token exchange failures (bad key, delegation not granted) come from the OAuth endpoint's error shape.
  if (oauth || /invalid_grant|unauthorized_client|invalid_scope/.test(err.message ?? '')) {
    return new UpstreamError(`Google sign-in for the service account failed: ${detail}`, {
      code: 'upstream_auth_failed',
      retryable: false,
      cause: e,
    });
  }
  switch (status) {
    case undefined:
      return new UpstreamError(`Google ${what}: ${detail}`, { code: 'upstream_unreachable', cause: e });
    case 400:
      return new ValidationError(`Google rejected the ${what} request: ${detail}`);
    case 401:
      return new UpstreamError(`Google refused our credentials for ${what}`, {
        code: 'upstream_auth_failed',
        retryable: false,
        cause: e,
      });
    case 403:
      if (reason && RATE_LIMIT_REASONS.has(reason)) {
        return new UpstreamError(`Google rate limit on ${what}`, {
          code: 'rate_limited',
          retryable: true,
          cause: e,
        });
      }
      return new ForbiddenError(`Google does not allow this ${what}: ${detail}`);
    case 404:
      return new NotFoundError(`${what} not found`);
    case 409:
      return new ConflictError(`Google ${what}: ${detail}`);
    case 429:
      return new UpstreamError(`Google rate limit on ${what}`, {
        code: 'rate_limited',
        retryable: true,
        cause: e,
      });
    default:
      return new UpstreamError(`Google ${what} failed (${status}): ${detail}`, {
        retryable: status >= 500,
        cause: e,
      });
  }
}

/** Validates a Google response body; a shape we do not understand is an upstream fault, not a retry. */
export function parseGoogle<S extends z.ZodType>(schema: S, data: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    throw new UpstreamError(
      `Google returned an unexpected ${what} response: ${describeZodIssues(parsed.error.issues)}`,
      {
        code: 'upstream_malformed',
        retryable: false,
      },
    );
  }
  return parsed.data;
}

/** Runs one Google call and maps its failure. */
export async function callGoogle<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw toGoogleError(e, what);
  }
}

export interface GoogleRetryOptions {
  retries?: number;
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
}

/**
 * Bounded retries for idempotent reads (GET): 429 and 5xx, three times with gaxios' exponential backoff
 * (first delay `retryDelayMs`, then 0.5 s, 1.5 s, each capped at `maxRetryDelayMs`). Writes (POST) are
 * never retried by the client: a timed-out send may have happened, and the tool's reconcile step decides.
 */
export function googleRetryConfig(opts: GoogleRetryOptions = {}) {
  return {
    retry: opts.retries ?? 3,
    retryDelay: opts.retryDelayMs ?? 250,
    maxRetryDelay: opts.maxRetryDelayMs ?? 4000,
    httpMethodsToRetry: ['GET', 'HEAD'],
    statusCodesToRetry: [
      [429, 429],
      [500, 599],
    ],
    noResponseRetries: 2,
  };
}
