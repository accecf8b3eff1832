/**
 * One error hierarchy for the whole system. Each error carries a stable `code` (for clients and logs),
 * an HTTP-ish `status` that the API edge maps to a response, and `retryable`, which the worker edge uses to
 * choose between "leave it on the queue for redelivery" and "dead-letter it now".
 */
export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly retryable: boolean;
  readonly details?: unknown;

  constructor(
    message: string,
    opts: { code: string; status: number; retryable?: boolean; details?: unknown; cause?: unknown },
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.code = opts.code;
    this.status = opts.status;
    this.retryable = opts.retryable ?? false;
    this.details = opts.details;
  }
}

export class ValidationError extends AppError {
  constructor(message: string, details?: unknown) {
    super(message, { code: 'validation_failed', status: 400, details });
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Sign in required') {
    super(message, { code: 'unauthorized', status: 401 });
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'Not allowed') {
    super(message, { code: 'forbidden', status: 403 });
  }
}

export class NotFoundError extends AppError {
  constructor(message: string) {
    super(message, { code: 'not_found', status: 404 });
  }
}

export class ConflictError extends AppError {
  constructor(message: string, details?: unknown) {
    super(message, { code: 'conflict', status: 409, details });
  }
}

/**
 * Another worker wrote first, and trying again settles it: a redelivered turn whose commit lost replays the
 * steps the winner stored instead of writing its own.
 */
export class RetryableConflictError extends AppError {
  constructor(message: string, details?: unknown) {
    super(message, { code: 'conflict_retry', status: 409, retryable: true, details });
  }
}

/** A dependency (DynamoDB, a vendor API, the model) failed in a way that may succeed on a later attempt. */
export class UpstreamError extends AppError {
  constructor(message: string, opts: { retryable?: boolean; cause?: unknown; code?: string } = {}) {
    super(message, {
      code: opts.code ?? 'upstream_failed',
      status: 502,
      retryable: opts.retryable ?? true,
      cause: opts.cause,
    });
  }
}

export class ConfigError extends AppError {
  constructor(message: string) {
    super(message, { code: 'config_invalid', status: 500 });
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

/** Formats zod issues as "path: message; …" so a 400 names the offending field. */
export function describeZodIssues(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
) {
  return issues
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}

/** Well-formed input that the rules refuse at this moment (an unknown recipient at the decision): 422. */
export class PreconditionError extends AppError {
  constructor(message: string, details?: unknown) {
    super(message, { code: 'precondition_failed', status: 422, details });
  }
}

/**
 * The conversation was deleted by an admin (issue 19) while something was working on it: the turn's commit
 * found its tombstone and wrote nothing. Not retryable — a retry would only start the deleted text over as a
 * new conversation; the worker ends the event instead (use-cases/process-event.ts).
 */
export class ConversationDeletedError extends AppError {
  constructor(conversationId: string) {
    super(`Conversation ${conversationId} was deleted`, { code: 'conversation_deleted', status: 410 });
  }
}
