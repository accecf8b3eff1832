/** What `once` did: ran the work now, or found the key already done or still in progress. */
export type OnceOutcome<T> = { ran: true; result: T } | { ran: false; reason: 'completed' | 'in_progress' };

export interface IdempotencyStore {
  /**
   * Runs `work` at most once per `key` (held across concurrent callers by a conditional write). If the work
   * throws, the key is released so the sender's retry runs it again. A key still marked in progress after
   * `remainingMs()` (the invocation's remaining time when it started) has passed is taken as abandoned — the
   * invocation timed out or was killed — and the next caller runs the work.
   */
  once<T extends Record<string, unknown>>(
    key: string,
    work: () => Promise<T>,
    opts?: { remainingMs?: () => number },
  ): Promise<OnceOutcome<T>>;
}
