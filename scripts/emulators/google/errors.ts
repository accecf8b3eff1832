// Google's JSON error envelope and the error type route handlers throw to produce it.

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};
const REASONS: Record<number, string> = {
  400: 'badRequest',
  401: 'authError',
  403: 'forbidden',
  404: 'notFound',
  409: 'duplicate',
  429: 'rateLimitExceeded',
  500: 'backendError',
  503: 'backendError',
};
export const DEFAULT_MESSAGES: Record<number, string> = {
  401: 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
  404: 'Requested entity was not found.',
  429: 'Quota exceeded for quota metric. Rate limit exceeded.',
  500: 'Backend Error',
  503: 'The service is currently unavailable.',
};

/** Google's JSON error envelope (`{ error: { code, message, errors, status } }`). */
export function googleError(status: number, message?: string, reason?: string) {
  const msg = message ?? DEFAULT_MESSAGES[status] ?? 'Request failed';
  return {
    error: {
      code: status,
      message: msg,
      errors: [{ message: msg, domain: 'global', reason: reason ?? REASONS[status] ?? 'unknown' }],
      status: STATUS_NAMES[status] ?? 'UNKNOWN',
    },
  };
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message?: string,
    readonly reason?: string,
  ) {
    super(message ?? DEFAULT_MESSAGES[status] ?? 'Request failed');
  }
}
