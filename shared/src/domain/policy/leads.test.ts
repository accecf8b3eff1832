import { describe, expect, test } from 'vitest';
import { loadDefaultRulebase } from './defaults';
import { createPolicyGuard } from './guard';
import { InMemoryFactStore } from './in-memory-fact-store';
import { SPEC_TOOLS } from './spec-tools';

const NOW = new Date('2025-01-15T15:00:00Z');
const env = { now: NOW, timezone: 'America/New_York' };
const rulebase = loadDefaultRulebase({ tools: SPEC_TOOLS });

async function lead(facts: { score?: number; pets?: string[] }) {
  const policy = createPolicyGuard({
    rulebase,
    facts: new InMemoryFactStore(),
    conversationId: 'lead-conv',
    context: { lead_of_interest: 'ct_lead' },
  });
  const recorded = [
    ...(facts.score === undefined ? [] : [{ predicate: 'credit_score', args: ['ct_lead', facts.score] }]),
    ...(facts.pets ?? []).map((k) => ({ predicate: 'pet', args: ['ct_lead', k] })),
  ];
  await policy.recordFacts(recorded, { kind: 'tool', detail: 'lead application email' }, NOW);
  return policy;
}

type Expect = 'qualified' | 'not qualified' | { ask: string };

const CASES: Array<[string, { score?: number; pets?: string[] }, Expect]> = [
  ['credit 550, no pets', { score: 550, pets: ['none'] }, 'not qualified'],
  ['credit 599, cat', { score: 599, pets: ['cat'] }, 'not qualified'],
  ['credit 600, no pets: review', { score: 600, pets: ['none'] }, { ask: 'between 600 and 669' }],
  ['credit 669, cat: review', { score: 669, pets: ['cat'] }, { ask: 'between 600 and 669' }],
  ['credit 670, no pets', { score: 670, pets: ['none'] }, 'qualified'],
  ['credit 800, cat', { score: 800, pets: ['cat'] }, 'qualified'],
  ['credit 720, dog', { score: 720, pets: ['dog'] }, 'not qualified'],
  ['credit 720, cat and dog', { score: 720, pets: ['cat', 'dog'] }, 'not qualified'],
  ['credit 640, dog: no review needed', { score: 640, pets: ['dog'] }, 'not qualified'],
  ['credit 550, pets unknown: no question needed', { score: 550 }, 'not qualified'],
  [
    'credit 720, snake: ask',
    { score: 720, pets: ['snake'] },
    { ask: 'ct_lead has a snake. Is that pet acceptable?' },
  ],
  ['credit 720, pets unknown: ask', { score: 720 }, { ask: 'Does ct_lead have pets?' }],
  ['credit unknown: ask', { pets: ['cat'] }, { ask: "What is ct_lead's credit score?" }],
];

describe('leads rulebase', () => {
  test.each(CASES)('%s', async (_name, facts, expected) => {
    const policy = await lead(facts);
    const r = await policy.query('qualified_lead(lead_of_interest)', env);
    if (expected === 'qualified') {
      expect(r.status).toBe('proved');
      expect(r.answers[0]?.why[0]).toMatch(
        /^qualified_lead\(ct_lead\) — by the rule at policy\/leads.rules:\d+$/,
      );
    } else if (expected === 'not qualified') {
      expect(r.status).toBe('failed');
      expect(r.missing.questions).toEqual([]);
    } else {
      expect(r.status).toBe('blocked');
      expect(r.missing.questions.map((q) => q.question).join(' | ')).toContain(expected.ask);
    }
  });

  test('a review answered yes qualifies the lead, answered no does not', async () => {
    const yes = await lead({ score: 640, pets: ['cat'] });
    await yes.recordAnswer('credit_review_passed(ct_lead)', { by: 'alex@oakproperties.example', now: NOW });
    const r = await yes.query('qualified_lead(lead_of_interest)', env);
    expect(r.status).toBe('proved');
    expect(r.answers[0]?.why.join('\n')).toContain(
      'credit_review_passed(ct_lead) — answered by alex@oakproperties.example',
    );

    const no = await lead({ score: 640, pets: ['cat'] });
    await no.recordAnswer('credit_review_passed(ct_lead)', { by: 'alex', now: NOW, holds: false });
    expect((await no.query('qualified_lead(lead_of_interest)', env)).status).toBe('failed');
  });

  test('disqualified names the reason', async () => {
    const policy = await lead({ score: 580, pets: ['dog'] });
    const r = await policy.query('disqualified(lead_of_interest, Reason)', env);
    expect(r.answers.map((a) => a.bindings.Reason)).toEqual(['credit_below_600', 'dog']);
  });
});
