import { DateTime } from 'luxon';
import { z } from 'zod';
import { UpstreamError, ValidationError } from '../errors';
import type { OnCallPager } from '../ports/on-call-pager';
import { checkPageBudget, type PageBudgetDeps } from './page-budget';
import { lazyInput, type Tool } from './tool';

export interface EscalationDeps {
  pager: OnCallPager;
  /** The paging budget (team-wide and per sender); absent → unlimited (unit tests). */
  budget?: PageBudgetDeps;
  onCallNumbers: string[];
  /** "HH:MM-HH:MM" in the team timezone; outside it the first number is still paged (urgent means urgent). */
  onCallHours: string;
}

const input = lazyInput(() =>
  z.object({
    reason: z.string().min(3).max(300),
    from: z.string().max(60).optional(),
    text: z.string().max(600).optional(),
  }),
);

/** Inside the on-call window every number is paged; outside it only the primary (first) one. */
export function whoToPage(deps: EscalationDeps, now: Date, timezone: string): string[] {
  const m = deps.onCallHours.match(/^(\d{1,2}):(\d{2})-(\d{1,2}):(\d{2})$/);
  if (!m) return deps.onCallNumbers;
  const local = DateTime.fromJSDate(now).setZone(timezone);
  const minutes = local.hour * 60 + local.minute;
  const start = Number(m[1]) * 60 + Number(m[2]);
  const end = Number(m[3]) * 60 + Number(m[4]);
  const inside = start <= end ? minutes >= start && minutes < end : minutes >= start || minutes < end;
  return inside ? deps.onCallNumbers : deps.onCallNumbers.slice(0, 1);
}

/**
 * Pages the on-call person by SMS and a voice call (Twilio). Whether it needs approval is policy
 * (ESCALATION_REQUIRES_APPROVAL, default no: a flood at 2 a.m. cannot wait for someone to open the app,
 * and the page goes only to our own on-call staff, never to an outside party).
 */
export const escalate: Tool<typeof input, EscalationDeps> = {
  name: 'escalate',
  group: 'escalation',
  kind: 'write',
  description:
    'Page the on-call team member (text + phone call) about an urgent matter such as a flood, fire, gas smell or no heat.',
  input,
  async run(deps, i, ctx) {
    const numbers = whoToPage(deps, ctx.now, ctx.timezone);
    if (!numbers.length) throw new ValidationError('No on-call number is configured (ONCALL_NUMBERS).');
    if (deps.budget) await checkPageBudget(deps.budget, i.from, ctx);
    const text = `URGENT (Switchboard): ${i.reason}${i.from ? ` — from ${i.from}` : ''}${i.text ? `: “${i.text.slice(0, 300)}”` : ''}`;
    const results = [];
    for (const to of numbers) {
      const r = await deps.pager.page({
        to,
        text,
        voiceText: `Urgent message from Switchboard. ${i.reason}. Please check the app.`,
      });
      results.push({
        to,
        sms: r.sms?.ok ? r.sms.sid : r.sms?.error.message,
        voice: r.voice?.ok ? r.voice.sid : r.voice?.error.message,
      });
    }
    if (results.every((r) => !r.sms?.startsWith('SM') && !r.voice?.startsWith('CA'))) {
      throw new UpstreamError(`Paging failed: ${JSON.stringify(results)}`, { retryable: false });
    }
    return { paged: results };
  },
  summarize: (i) => `Page the on-call person: ${i.reason}`,
};
