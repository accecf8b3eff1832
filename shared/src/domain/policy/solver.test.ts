import { describe, expect, test } from 'vitest';
import { createPolicyGuard } from './guard';
import { InMemoryFactStore } from './in-memory-fact-store';
import { loadRulebase } from './load';

const TOOLS = [
  { name: 'get_lead', kind: 'read' as const },
  { name: 'get_pets', kind: 'read' as const },
];

const RULES = `
context lead_of_interest "The lead under discussion".
bind credit_score(L, S) from get_lead(lead_id: L) { S: "credit.score" }.
askable credit_score(L, S) "What is {L}'s credit score?".
ttl credit_score 60s.
bind pets(L, K) from get_pets(lead_id: L) each "pets[*]" { K: "kind" }.
ttl pets 10m.
good(L) :- credit_score(L, S), S >= 670.
ok(L) :- good(L), not pets(L, dog).
both(L, S, K) :- credit_score(L, S), pets(L, K).
base seen(X).
loop(X) :- seen(X), loop(X).
`;

const T0 = Date.parse('2025-01-15T15:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000);

type Reply = (args: Record<string, unknown>) => unknown | Promise<unknown>;

function setup(replies: Record<string, Reply>, limits?: { timeoutMs?: number; maxDepth?: number }) {
  const rulebase = loadRulebase(RULES, { tools: TOOLS });
  const facts = new InMemoryFactStore();
  const calls: Array<{ tool: string; args: Record<string, unknown> }> = [];
  const policy = createPolicyGuard({
    rulebase,
    facts,
    conversationId: 'conv-1',
    context: { lead_of_interest: 'ld_1' },
    seeds: [{ predicate: 'seen', args: ['x'] }],
    tools: TOOLS,
    ...(limits ? { limits } : {}),
  });
  const env = (seconds: number) => ({
    now: at(seconds),
    timezone: 'America/New_York',
    async callReadTool(tool: string, args: Record<string, unknown>) {
      calls.push({ tool, args });
      const reply = replies[tool];
      if (!reply) throw new Error(`no fake for ${tool}`);
      return reply(args);
    },
  });
  return { policy, facts, calls, env };
}

describe('solver: facts with TTL', () => {
  test('a base fact is fetched through its bound tool, reused within its TTL, and refetched once expired', async () => {
    const { policy, calls, env } = setup({ get_lead: () => ({ credit: { score: 700 } }) });
    expect((await policy.query('good(lead_of_interest)', env(0))).status).toBe('proved');
    expect(calls).toEqual([{ tool: 'get_lead', args: { lead_id: 'ld_1' } }]);
    expect((await policy.query('good(lead_of_interest)', env(59))).status).toBe('proved');
    expect(calls).toHaveLength(1);
    expect((await policy.query('good(lead_of_interest)', env(61))).status).toBe('proved');
    expect(calls).toHaveLength(2);
  });

  test('a derived fact is invalid once the fact it rests on expires: it is re-derived from fresh data', async () => {
    let score = 700;
    const { policy, facts, env } = setup({ get_lead: () => ({ credit: { score } }) });
    const first = await policy.query('good(lead_of_interest)', env(0));
    expect(first.status).toBe('proved');
    expect(first.answers[0]?.validUntil).toBe(at(60).toISOString());
    expect(first.answers[0]?.why.join('\n')).toContain(
      'credit_score(ld_1, 700) — from get_lead(lead_id: ld_1)',
    );
    // Derived facts are never stored, so nothing can outlive its support.
    expect(facts.dump('conv-1').map((f) => f.predicate)).not.toContain('good');

    score = 550;
    expect((await policy.query('good(lead_of_interest)', env(30))).status).toBe('proved');
    const later = await policy.query('good(lead_of_interest)', env(61));
    expect(later.status).toBe('failed');
  });

  test('a negation resting on a fetched absence carries that absence’s expiry', async () => {
    const { policy, env } = setup({
      get_lead: () => ({ credit: { score: 700 } }),
      get_pets: () => ({ pets: [{ kind: 'cat' }] }),
    });
    const r = await policy.query('ok(lead_of_interest)', env(0));
    expect(r.status).toBe('proved');
    expect(r.answers[0]?.why.join('\n')).toContain('not pets(ld_1, dog) — nothing establishes it');
    expect(r.answers[0]?.validUntil).toBe(at(60).toISOString());
  });
});

describe('solver: tools before questions', () => {
  test('when the bound tool supplies the fact, no question is asked', async () => {
    const { policy, calls, env } = setup({ get_lead: () => ({ credit: { score: 690 } }) });
    const r = await policy.query('good(lead_of_interest)', env(0));
    expect(r.status).toBe('proved');
    expect(r.missing.questions).toEqual([]);
    expect(calls.map((c) => c.tool)).toEqual(['get_lead']);
  });

  test('only after the tool has no answer does the askable become a question', async () => {
    const { policy, calls, env } = setup({ get_lead: () => ({ credit: {} }) });
    const r = await policy.query('good(lead_of_interest)', env(0));
    expect(calls.map((c) => c.tool)).toEqual(['get_lead']);
    expect(r.status).toBe('blocked');
    expect(r.missing.tools).toEqual([]);
    expect(r.missing.questions).toEqual([
      {
        predicate: 'credit_score',
        question: "What is ld_1's credit score?",
        answerPattern: 'credit_score(ld_1, S)',
      },
    ]);
  });

  test('a failing tool is reported as the thing to retry, not replaced by a question', async () => {
    const { policy, env } = setup({
      get_lead: () => {
        throw new Error('503 from the lead service');
      },
    });
    const r = await policy.query('good(lead_of_interest)', env(0));
    expect(r.status).toBe('blocked');
    expect(r.missing.questions).toEqual([]);
    expect(r.missing.tools).toMatchObject([
      {
        tool: 'get_lead',
        args: { lead_id: 'ld_1' },
        predicate: 'credit_score',
        error: '503 from the lead service',
      },
    ]);
  });

  test("a person's answer unblocks the same query on the next (stateless) call", async () => {
    const { policy, env } = setup({ get_lead: () => ({}) });
    expect((await policy.query('good(lead_of_interest)', env(0))).status).toBe('blocked');
    await policy.recordAnswer('credit_score(lead_of_interest, 680)', { by: 'sam@oak', now: at(1) });
    const r = await policy.query('good(lead_of_interest)', env(2));
    expect(r.status).toBe('proved');
    expect(r.answers[0]?.why.join('\n')).toContain('credit_score(ld_1, 680) — answered by sam@oak');
  });

  test('a "no" closes the question until its ttl runs out', async () => {
    const { policy, env } = setup({ get_lead: () => ({}) });
    await policy.recordAnswer('credit_score(ld_1, 0)', { by: 'sam', now: at(0), holds: false });
    expect((await policy.query('good(lead_of_interest)', env(1))).status).toBe('failed');
    expect((await policy.query('good(lead_of_interest)', env(120))).status).toBe('blocked');
  });
});

describe('solver: bounds and concurrency', () => {
  test('independent lookups in one conjunction are fetched concurrently', async () => {
    let active = 0;
    let peak = 0;
    const slow = (value: unknown) => async () => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 40));
      active--;
      return value;
    };
    const { policy, calls, env } = setup({
      get_lead: slow({ credit: { score: 700 } }),
      get_pets: slow({ pets: [{ kind: 'cat' }, { kind: 'fish' }] }),
    });
    const r = await policy.query('both(lead_of_interest, S, K)', env(0));
    expect(r.status).toBe('proved');
    expect(r.answers.map((a) => a.bindings)).toEqual([
      { S: 700, K: 'cat' },
      { S: 700, K: 'fish' },
    ]);
    expect(peak).toBe(2);
    expect(calls).toHaveLength(2);
  });

  test('runaway recursion stops at the depth bound with status unknown', async () => {
    const { policy, env } = setup({}, { maxDepth: 8 });
    const r = await policy.query('loop(x)', env(0));
    expect(r.status).toBe('unknown');
    expect(r.reason).toContain('depth limit 8');
  });

  test('a tool that never answers stops the solve at the time bound', async () => {
    const { policy, env } = setup({ get_lead: () => new Promise(() => {}) }, { timeoutMs: 100 });
    const started = Date.now();
    const r = await policy.query('good(lead_of_interest)', env(0));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(r.status).toBe('unknown');
    expect(r.reason).toContain('time limit');
  });

  test('an unbound context variable asks for focus instead of guessing', async () => {
    const rulebase = loadRulebase(RULES, { tools: TOOLS });
    const policy = createPolicyGuard({ rulebase, facts: new InMemoryFactStore(), conversationId: 'c' });
    const r = await policy.query('good(lead_of_interest)', { now: at(0), timezone: 'UTC' });
    expect(r.status).toBe('blocked');
    expect(r.missing.focus).toEqual(['lead_of_interest']);
  });
});
