import { describe, expect, test } from 'vitest';
import { AUTONOMY_RULES } from '../../../domain/policy/defaults';
import type { Observation, Plan, PlannerInput, Trigger } from '../../types';
import { chat } from '../chat';
import { policyChange } from './policy-change';

const ALEX = { id: 'u_alex', email: 'alex@oakproperties.example', name: 'Alex Rivera' };
const now = new Date('2026-11-24T10:00:00Z');

function input(text: string, observations: Observation[] = [], channel: 'web' | 'sms' = 'web'): PlannerInput {
  const trigger: Trigger = { kind: 'chat', channel, text, user: ALEX };
  return { trigger, observations, now, timezone: 'America/New_York', hasTool: () => true };
}

const plan = (i: PlannerInput): Plan => chat(i, i.trigger as Extract<Trigger, { kind: 'chat' }>);

const searched: Observation = {
  name: 'search_files',
  args: { query: 'autonomous', dir: 'policy' },
  status: 'ok',
  result: {
    matches: [
      'policy/autonomy.rules:24: autonomous reply_to_sender when true.',
      'policy/autonomy.rules:28: autonomous escalate when team_setting(escalation_requires_approval, false).',
      'policy/autonomy.rules:33: %   autonomous send_message(To, Text)',
    ],
  },
};
const readAutonomy: Observation = {
  name: 'read_file',
  args: { path: 'policy/autonomy.rules' },
  status: 'ok',
  result: { path: 'policy/autonomy.rules', content: AUTONOMY_RULES },
};

function firstCall(p: Plan) {
  if (p.kind !== 'calls') throw new Error(`expected a call, got ${JSON.stringify(p)}`);
  return p.calls[0] as { name: string; args: Record<string, unknown> };
}

describe('rules mode: a policy change asked in chat', () => {
  test.each([
    ['Require approval for paging', 'require'],
    ['Always ask before creating tasks.', 'require'],
    ["Don't text team members without approval", 'require'],
    ['require approval for sending email to vendors', 'require'],
    ['Let the assistant create tasks without approval', 'allow'],
    ['Stop requiring approval for calendar events', 'allow'],
  ])('“%s” is recognised (%s)', (text, direction) => {
    expect(policyChange.detect(text, input(text))).toMatchObject({ direction });
    // And reaches the intent through the chat planner (not read as "stop" = cancel, or as a text to send).
    expect(firstCall(plan(input(text))).name).toMatch(/^(search_files|read_file)$/);
  });

  test.each([
    'Text Maria that the plumber comes at 3',
    'Remember that the gate code changed',
    'Ask Maria before Friday whether the heater works',
    'What needs approval?',
  ])('“%s” is not a policy change', (text) => {
    expect(policyChange.detect(text, input(text))).toBeUndefined();
  });

  test('"require approval for paging": search → read → a proposal that comments out the escalate rule', () => {
    const text = 'Require approval for paging';
    expect(firstCall(plan(input(text)))).toMatchObject({ name: 'search_files' });
    expect(firstCall(plan(input(text, [searched])))).toMatchObject({
      name: 'read_file',
      args: { path: 'policy/autonomy.rules' },
    });
    const p = firstCall(plan(input(text, [searched, readAutonomy])));
    expect(p.name).toBe('propose_policy_change');
    expect(p.args.path).toBe('policy/autonomy.rules');
    expect(p.args.text).toContain(
      '% autonomous escalate when team_setting(escalation_requires_approval, false).',
    );
    expect(p.args.text).toContain('% Proposed in chat by Alex Rivera on 2026-11-24');
    expect(p.args.reason).toBe('Alex Rivera asked in chat: “Require approval for paging”');
    expect(p.args.baseVersion).toBeUndefined(); // the system fills it, never the planner
  });

  test('emails already wait for approval: a clear answer and no card', () => {
    const text = 'require approval for sending email to vendors';
    const p = plan(input(text, [searched, readAutonomy]));
    expect(p).toEqual({
      kind: 'respond',
      text: "Emails already wait for a person's approval: no rule in the policy lets them skip it.",
    });
  });

  test('texts without approval only to team members; emails never', () => {
    expect(plan(input('let the assistant text tenants without approval'))).toMatchObject({
      kind: 'respond',
      text: expect.stringMatching(/only to team members/),
    });
    expect(plan(input('let you send emails without approval'))).toMatchObject({
      kind: 'respond',
      text: expect.stringMatching(/do not propose sending emails without approval/),
    });
    const text = 'Let the assistant text team members without approval';
    expect(firstCall(plan(input(text)))).toMatchObject({ name: 'read_file' });
    const p = firstCall(plan(input(text, [readAutonomy])));
    expect(p.name).toBe('propose_policy_change');
    expect(String(p.args.text).trimEnd().split('\n').at(-1)).toBe(
      'autonomous send_message(To, Text) when internal_contact(To).',
    );
  });

  test('by SMS (a phone number is not proof of who asks) and for an unknown write: a clear answer', () => {
    expect(plan(input('Require approval for paging', [], 'sms'))).toEqual({
      kind: 'respond',
      text: 'I take policy changes only from someone signed in to the app, not by text.',
    });
    expect(plan(input('require approval for ordering pizza'))).toMatchObject({
      kind: 'respond',
      text: expect.stringMatching(/^I can propose approval changes for .*Admin › Policy/),
    });
  });

  test('after the decision: the outcome in words', () => {
    const decided = (status: Observation['status']): Observation => ({
      name: 'propose_policy_change',
      args: {},
      status,
      ...(status === 'denied' ? { error: 'not now' } : {}),
    });
    const text = 'Require approval for paging';
    expect(plan(input(text, [searched, readAutonomy, decided('executed')]))).toEqual({
      kind: 'respond',
      text: "Done: pages to the on-call person wait for a person's approval again.",
    });
    expect(plan(input(text, [searched, readAutonomy, decided('denied')]))).toMatchObject({
      text: 'Okay, I did not change the policy (reason: not now).',
    });
  });
});
