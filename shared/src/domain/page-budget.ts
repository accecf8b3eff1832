/** One rate limit: at most `limit` takes per `windowMs` on `key` (sliding window). */
export interface PageLimit {
  key: string;
  limit: number;
  windowMs: number;
  /** What a person is told when this limit is what stops a page. */
  describe: string;
}

export type PageBudgetVerdict = { ok: true } | { ok: false; blockedBy: PageLimit };
