import { expect, test } from 'vitest';
import { rulesPlan } from '../../shared/src/agent/rules-planner';
import type { PlannerInput } from '../../shared/src/agent/types';

/** The rules planner reads the asking person's preferences: their default event length (issue 20). */
const input = (preferences?: PlannerInput['preferences']): PlannerInput => ({
  trigger: {
    kind: 'chat',
    channel: 'web',
    text: 'schedule a showing at 12 Oak St tomorrow at 3pm',
    user: { id: 'u_sam', email: 'sam@oakproperties.example' },
  },
  observations: [],
  now: new Date('2026-06-01T13:00:00Z'),
  timezone: 'America/New_York',
  hasTool: () => true,
  ...(preferences ? { preferences } : {}),
});

const minutesOf = (plan: ReturnType<typeof rulesPlan>) => {
  if (plan.kind !== 'calls') throw new Error(`expected a call, got ${plan.kind}`);
  const args = plan.calls[0]?.args as { start: string; end: string };
  return (Date.parse(args.end) - Date.parse(args.start)) / 60_000;
};

test('an event lasts the person’s default length, else 30 minutes', () => {
  expect(minutesOf(rulesPlan(input({ eventMinutes: 45 })))).toBe(45);
  expect(minutesOf(rulesPlan(input()))).toBe(30);
});
