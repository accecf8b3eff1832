import { describe, expect, it } from 'vitest';
import { matchTemplate, templatePlan } from './templates';

describe('research templates (rules mode)', () => {
  it.each([
    ["summarise Maria Lopez's history", 'contact_history', 'Maria Lopez'],
    ['Summarize the history of David Kim before the renewal call', 'contact_history', 'David Kim'],
    ['research Priya Shah', 'contact_history', 'Priya Shah'],
    ["what's open at 12 Oak St?", 'property_open', '12 Oak St'],
    ['what is still open for 40 Elm Ave', 'property_open', '40 Elm Ave'],
    ['track record of CoolAir HVAC', 'vendor_record', 'CoolAir HVAC'],
    ['vendor history for Acme Plumbing', 'vendor_record', 'Acme Plumbing'],
  ])('%s → %s (%s)', (goal, template, subject) => {
    expect(matchTemplate(goal)).toEqual({ template, subject });
  });

  it.each(['is the office open on Monday?', 'text Maria that the plumber comes at 3', 'who is Maria?'])(
    '%s is not research',
    (text) => {
      expect(matchTemplate(text)).toBeUndefined();
    },
  );

  it('drops the steps whose tool is not configured, and a group left empty', () => {
    const plan = templatePlan(
      { template: 'contact_history', subject: 'Maria Lopez' },
      {
        now: new Date('2026-11-24T09:00:00Z'),
        hasTool: (t) => !['search_tasks', 'list_calendar_events'].includes(t),
      },
    );
    expect(plan.map((i) => i.key)).toEqual(['who', 'comms', 'threads']);
    expect(plan[1]?.subtasks?.map((i) => i.tool)).toEqual(['list_messages', 'list_calls', 'search_emails']);
  });
});
