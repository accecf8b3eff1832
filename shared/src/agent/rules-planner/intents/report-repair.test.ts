import { describe, expect, it } from 'vitest';
import type { Observation, Plan } from '../../types';
import { rulesPlan } from '..';
import { chatInput } from '../chat-input.test-fixture';

const NOW = new Date('2026-11-24T15:00:00Z');

function chat(text: string, observations: Observation[] = [], hasTool = true): Plan {
  return rulesPlan(
    chatInput(text, {
      now: NOW,
      timezone: 'America/New_York',
      channel: 'sms',
      email: 'jo@oak.example',
      observations,
      hasTool,
    }),
  );
}

describe('a team member passing on a repair', () => {
  it('becomes a task named in their words, and the reply says what it was read as', () => {
    const plan = chat("4B's dishwasher is leaking again. tenant texted me this morning");
    expect(plan).toMatchObject({
      kind: 'calls',
      calls: [
        {
          name: 'create_task',
          args: { name: "4B's dishwasher is leaking again" },
          reason: 'A repair passed on (the dishwasher): a task for it on the board',
        },
      ],
    });
    const done = chat("4B's dishwasher is leaking again. tenant texted me this morning", [
      { name: 'create_task', args: {}, status: 'executed', result: { id: 't1' } },
    ]);
    expect(done).toEqual({
      kind: 'respond',
      text: "Task created: “4B's dishwasher is leaking again”. I read it as a repair to the dishwasher.",
    });
  });

  it.each([
    'the hallway light on the 2nd floor is out',
    'Kitchen sink at 12 Oak #2 is clogged',
    'garage door at Birch St is stuck half open',
  ])('“%s” is a repair', (text) => {
    expect(chat(text)).toMatchObject({ kind: 'calls', calls: [{ name: 'create_task' }] });
  });

  it.each([
    'is the dishwasher in 4B fixed?',
    'did the plumber fix the kitchen sink at Oak',
    'the tenant in 4B moved out',
    'I love the new kitchen sink',
  ])('“%s” is not a repair report', (text) => {
    const plan = chat(text);
    expect(plan.kind === 'calls' && plan.calls.some((c) => c.name === 'create_task')).toBe(false);
  });

  it('says so plainly when no task board is configured', () => {
    expect(chat('the dryer in the laundry room is broken', [], false)).toEqual({
      kind: 'respond',
      text: 'The task board is not configured here.',
    });
  });
});
