import type { PageLimit } from './page-budget';

export interface PageBudgetSettings {
  /** PAGE_BUDGET_PER_HOUR: team-wide pages in any hour. */
  perHour: number;
  /** PAGES_PER_SENDER_PER_HOUR: pages one known sender can cause in any hour. */
  perSenderPerHour: number;
  /** UNKNOWN_SENDER_PAGE_WINDOW_MINUTES: a number not in the contacts pages at most once per window. */
  unknownWindowMinutes: number;
}

const HOUR = 3_600_000;

/**
 * The limits a page must fit: the team's hourly budget, and the sender's own — tighter for a number that
 * is not a contact, so rotating numbers cannot page without end (each new number still spends the team's
 * budget). A page with no sender is held to the team budget only.
 */
export function pageLimits(s: PageBudgetSettings, sender: { phone?: string; known: boolean }): PageLimit[] {
  const limits: PageLimit[] = [
    { key: 'team', limit: s.perHour, windowMs: HOUR, describe: `${s.perHour} pages an hour for the team` },
  ];
  if (!sender.phone) return limits;
  limits.push(
    sender.known
      ? {
          key: `sender:${sender.phone}`,
          limit: s.perSenderPerHour,
          windowMs: HOUR,
          describe: `${s.perSenderPerHour} pages an hour for one sender`,
        }
      : {
          key: `unknown:${sender.phone}`,
          limit: 1,
          windowMs: s.unknownWindowMinutes * 60_000,
          describe: `one page per ${s.unknownWindowMinutes} minutes for a number not in the contacts`,
        },
  );
  return limits;
}
