import { type PageBudgetSettings, pageLimits } from '../domain/page-limits';
import { AppError } from '../errors';
import type { PageBudgetStore } from '../ports/page-budget';
import type { ToolContext } from './tool';

/** A page the budget refused: final for this card (the card ends FAILED with the reason, a person may retry). */
export class PageBudgetExceededError extends AppError {
  constructor(message: string) {
    super(message, { code: 'page_budget_exceeded', status: 429, retryable: false });
  }
}

export interface PageBudgetDeps {
  store: PageBudgetStore;
  settings: PageBudgetSettings;
  /** The number that caused this page, as the inbound webhook recorded it (not the model's arguments). */
  sender(ctx: ToolContext): Promise<string | undefined>;
  /** Whether a number is one of our contacts (unknown numbers get the tighter limit). */
  isKnown(phone: string): Promise<boolean>;
  /** Who decided the card this page runs for: 'policy' when no person did. */
  decidedBy(ctx: ToolContext): Promise<string | undefined>;
  /** Tells the team in the PWA (a push and the conversation) that a page was held back. */
  alertTeam(ctx: ToolContext, title: string, body: string): Promise<void>;
}

/**
 * Paging is limited only when no person decided (SPEC §4): a page the policy let through on its own spends
 * the team's hourly budget and its sender's; past any limit nothing is paged and the team is alerted in the
 * app instead — never silence. A page a person approved (or retried) goes out regardless.
 */
export async function checkPageBudget(
  deps: PageBudgetDeps,
  claimedFrom: string | undefined,
  ctx: ToolContext,
) {
  const by = await deps.decidedBy(ctx);
  if (by && by !== 'policy') return;
  const from = (await deps.sender(ctx)) ?? claimedFrom;
  const known = from ? await deps.isKnown(from).catch(() => false) : false;
  const verdict = await deps.store.tryTake(
    pageLimits(deps.settings, { ...(from ? { phone: from } : {}), known }),
    ctx.now,
  );
  if (verdict.ok) return;
  const reason = `Paging limit reached (${verdict.blockedBy.describe}); the on-call person was NOT paged${
    from ? ` for ${from}` : ''
  }. Check the conversation and page or call them yourself if it is real — retrying this card pages anyway.`;
  await deps.alertTeam(ctx, 'Paging limit reached — not paged', reason);
  throw new PageBudgetExceededError(reason);
}
