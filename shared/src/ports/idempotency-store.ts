export interface IdempotencyStore {
  /**
   * Claims `key` for `ttlSeconds`. True when this caller is the first (or the previous claim expired);
   * false when someone already holds it. Conditional write: holds across concurrent callers.
   */
  claim(key: string, ttlSeconds: number): Promise<boolean>;
  /** Gives a claim back when the work it guarded failed, so the sender's retry is not taken for a duplicate. */
  release(key: string): Promise<void>;
}
