import type { PageBudgetVerdict, PageLimit } from '../domain/page-budget';

/** The limits and the verdict are domain types (page-limits.ts computes with them); the store is the port. */
export type { PageBudgetVerdict, PageLimit };

/**
 * The paging budget (SPEC §4, §6): every limit is checked and counted together, atomically across
 * workers, so of concurrent pages only those within every limit go out, and a refused page counts nowhere.
 */
export interface PageBudgetStore {
  tryTake(limits: PageLimit[], now: Date): Promise<PageBudgetVerdict>;
}
