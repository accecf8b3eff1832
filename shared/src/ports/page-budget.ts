/** One rate limit: at most `limit` takes per `windowMs` on `key` (sliding window). */
export interface PageLimit {
  key: string;
  limit: number;
  windowMs: number;
  /** What a person is told when this limit is what stops a page. */
  describe: string;
}

export type PageBudgetVerdict = { ok: true } | { ok: false; blockedBy: PageLimit };

/**
 * The paging budget (SPEC §4, §6): every limit is checked and counted together, atomically across
 * workers, so of concurrent pages only those within every limit go out, and a refused page counts nowhere.
 */
export interface PageBudgetStore {
  tryTake(limits: PageLimit[], now: Date): Promise<PageBudgetVerdict>;
}
