import { describe, expect, test } from 'vitest';
import { loadDefaultRulebase } from '../domain/policy/defaults';
import { FocusRejectedError, PolicyQueryError } from '../domain/policy/errors';
import { createPolicyGuard } from '../domain/policy/guard';
import { InMemoryFactStore } from '../domain/policy/in-memory-fact-store';
import { SPEC_TOOLS } from '../domain/policy/spec-tools';
import { askPolicy, setFocus } from './policy';

const ctx = {
  conversationId: 'lead-1',
  runId: 'run-1',
  now: new Date('2025-01-15T15:00:00Z'),
  timezone: 'America/New_York',
};

function deps() {
  const policy = createPolicyGuard({
    rulebase: loadDefaultRulebase({ tools: SPEC_TOOLS }),
    facts: new InMemoryFactStore(),
    conversationId: 'lead-1',
    tools: SPEC_TOOLS,
  });
  return { policy };
}

describe('policy tools', () => {
  test('set_focus then ask_policy: the model gets the verdict with its derivation', async () => {
    const d = deps();
    await d.policy.recordFacts(
      [
        { predicate: 'credit_score', args: ['ct_lead', 700] },
        { predicate: 'pet', args: ['ct_lead', 'cat'] },
      ],
      { kind: 'tool', detail: 'lead email 18c2' },
      ctx.now,
    );
    expect(
      await setFocus.run(d, setFocus.input.parse({ name: 'lead_of_interest', value: 'ct_lead' }), ctx),
    ).toEqual({
      name: 'lead_of_interest',
      value: 'ct_lead',
    });
    const out = (await askPolicy.run(
      d,
      askPolicy.input.parse({ query: 'qualified_lead(lead_of_interest)' }),
      ctx,
    )) as {
      status: string;
      answers: Array<{ why: string[] }>;
    };
    expect(out.status).toBe('proved');
    expect(out.answers[0]?.why.join('\n')).toContain('credit_score(ct_lead, 700) — from lead email 18c2');
  });

  test('ask_policy tells the model what is missing, with the pattern to record an answer', async () => {
    const d = deps();
    await setFocus.run(d, { name: 'lead_of_interest', value: 'ct_lead' }, ctx);
    const out = await askPolicy.run(d, { query: 'qualified_lead(lead_of_interest)' }, ctx);
    expect(out).toMatchObject({
      status: 'blocked',
      missing: {
        questions: [{ ask: "What is ct_lead's credit score?", recordAs: 'credit_score(ct_lead, Score)' }],
      },
    });
  });

  test('ask_policy refuses literal ids (queries stay symbolic) and unknown predicates', async () => {
    const d = deps();
    await expect(askPolicy.run(d, { query: 'qualified_lead("tom@mail.example")' }, ctx)).rejects.toThrow(
      PolicyQueryError,
    );
    await expect(askPolicy.run(d, { query: 'qualified(lead_of_interest)' }, ctx)).rejects.toThrow(
      /unknown predicate/,
    );
  });

  test('set_focus validates its input and refuses undeclared variables', async () => {
    const d = deps();
    expect(setFocus.input.safeParse({ name: 'Lead', value: 'x' }).success).toBe(false);
    expect(setFocus.kind).toBe('internal');
    expect(askPolicy.kind).toBe('read');
    await expect(setFocus.run(d, { name: 'booking_of_interest', value: 'bk_1' }, ctx)).rejects.toThrow(
      FocusRejectedError,
    );
  });
});
