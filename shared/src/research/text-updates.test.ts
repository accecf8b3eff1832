import { describe, expect, it } from 'vitest';
import type { ResearchNode, ResearchTask } from '../contracts/research';
import { sensitiveFindings } from '../domain/sensitive-content';
import { endText, reviewText } from './text-updates';

const task = {
  id: 'rt_ba289b0cb3fd3f477324',
  goal: "summarise Maria Lopez's history",
  status: 'done',
  reportPath: 'reports/2026-11-24-summarise-maria-lopez-s-history-477324.md',
} as ResearchTask;
const root = {
  output: {
    summary:
      '### Texts with Maria Lopez\n2 items found:\n- 2026-11-23 08:29 (+14155550111) Hi, the heater is banging.\n- **1 email found:** maria.lopez@mail.example',
  },
} as ResearchNode;

describe('research texted to a team member', () => {
  it('the end is plain text that the sensitive-content guard lets go out unreviewed (no path that reads as a token)', () => {
    const text = endText(task, root);
    expect(text).toMatch(/^Research finished: summarise Maria Lopez's history\.\n\nTexts with Maria Lopez\n/);
    expect(text).not.toMatch(/[#*]/);
    expect(text).not.toContain(task.reportPath);
    expect(sensitiveFindings(text, [])).toEqual([]);
  });

  it('a long plan is cut to one SMS-sized text that still says how to answer', () => {
    const items = Array.from({ length: 40 }, (_, i) => ({
      key: `s${i}`,
      goal: `Look up everything about unit ${i} at 12 Oak St and its history`,
      kind: 'read' as const,
      tool: 'search_tasks',
      dependsOn: [],
    }));
    const text = reviewText({ ...task, status: 'review', reviewReason: 'the plan has 40 steps' }, items);
    expect(text.length).toBeLessThanOrEqual(1400);
    expect(text).toMatch(/…\nReply RUN IT to run it, CANCEL to drop it, or REMOVE and step numbers/);
  });
});
