import { describe, expect, test } from 'vitest';
import type { ToolCallRequest } from '../tool-guard';
import { DEFAULT_RULEBASE_FILES } from './defaults';
import { PolicyConfigError, RulebaseError } from './errors';
import { createPolicyGuard, runSeeds } from './guard';
import { InMemoryFactStore } from './in-memory-fact-store';
import { loadRulebases } from './load';
import { SPEC_TOOLS } from './spec-tools';

const SAM = '+14155550102';
const MARIA = '+14155550111';
const contacts = {
  contacts: [
    { id: 'ct_sam', phones: [SAM], internal: true },
    { id: 'ct_maria', phones: [MARIA], internal: false },
  ],
};
const NOON = new Date('2025-01-15T17:00:00Z');

function guardFor(files: Record<string, string>) {
  const facts = new InMemoryFactStore();
  const calls: string[] = [];
  const policy = createPolicyGuard({
    rulebase: loadRulebases(files, { tools: SPEC_TOOLS }),
    facts,
    conversationId: 'c1',
    tools: SPEC_TOOLS,
  });
  const env = {
    now: NOON,
    timezone: 'America/New_York',
    async callReadTool(name: string, args: Record<string, unknown>) {
      calls.push(`${name} ${JSON.stringify(args)}`);
      return contacts;
    },
  };
  const call = (
    tool: string,
    kind: ToolCallRequest['kind'],
    args: Record<string, unknown>,
    origin: ToolCallRequest['origin'] = 'model',
  ) => policy.check({ tool, kind, args, origin, conversationId: 'c1' }, env);
  return { policy, facts, calls, env, call };
}

describe('guard verdicts', () => {
  test('by default every write needs approval, even when its guard holds', async () => {
    const { call } = guardFor({ ...DEFAULT_RULEBASE_FILES });
    const v = await call('send_message', 'write', { to: SAM, text: 'Got it, thanks!' });
    expect(v.decision).toBe('require_approval');
    const task = await call('create_task', 'write', { name: 'Fix heater' });
    expect(task).toMatchObject({
      decision: 'require_approval',
      why: [
        expect.stringMatching(
          /^create_task: no precondition beyond a person's approval \(policy\/autonomy.rules:\d+\)$/,
        ),
      ],
    });
  });

  test('escalation skips approval only when the team setting says so; the in-channel reply always does', async () => {
    const rulebase = loadRulebases({ ...DEFAULT_RULEBASE_FILES }, { tools: SPEC_TOOLS });
    const env = { now: NOON, timezone: 'America/New_York', callReadTool: async () => ({}) };
    const page = (settings: Record<string, boolean>) =>
      createPolicyGuard({
        rulebase,
        facts: new InMemoryFactStore(),
        conversationId: 'c1',
        seeds: runSeeds({ now: NOON, timezone: 'America/New_York', settings }),
      }).check(
        {
          tool: 'escalate',
          kind: 'write',
          args: { reason: 'flood' },
          origin: 'planner',
          conversationId: 'c1',
        },
        env,
      );
    expect((await page({ escalation_requires_approval: true })).decision).toBe('require_approval');
    const direct = await page({ escalation_requires_approval: false });
    expect(direct.decision).toBe('allow');
    expect(direct.why?.join('\n')).toContain(
      'team_setting(escalation_requires_approval, false) — set at run start',
    );
    expect((await page({})).decision).toBe('require_approval');

    const { call } = guardFor({ ...DEFAULT_RULEBASE_FILES });
    expect((await call('reply_to_sender', 'write', { text: 'On it' })).decision).toBe('allow');
  });

  test('a team-added autonomy rule lets an acknowledgement to a team member skip approval — and nothing else', async () => {
    const { call } = guardFor({
      ...DEFAULT_RULEBASE_FILES,
      'policy/team.rules': [
        '% Short acknowledgements to our own people go out directly.',
        'autonomous send_message(To, Text)',
        '  when internal_contact(To), length(Text, N), N <= 160, contains(Text, "got it").',
      ].join('\n'),
    });
    const ack = await call('send_message', 'write', { to: SAM, text: 'Got it, thanks!' });
    expect(ack.decision).toBe('allow');
    expect(ack.reason).toContain('without approval (policy/team.rules:2)');
    expect(ack.why?.join('\n')).toContain('contains("Got it, thanks!", "got it") — computed');
    expect(ack.why?.join('\n')).toContain(`internal_contact("${SAM}")`);
    // The same words to a tenant, or other words to a team member, still need a person.
    expect((await call('send_message', 'write', { to: MARIA, text: 'Got it, thanks!' })).decision).toBe(
      'require_approval',
    );
    expect((await call('send_message', 'write', { to: SAM, text: 'Rent is waived' })).decision).toBe(
      'require_approval',
    );
  });

  test('tools without a guard keep the default: reads allowed, writes need approval', async () => {
    const { call } = guardFor({ ...DEFAULT_RULEBASE_FILES });
    expect((await call('search_emails', 'read', { query: 'x' })).decision).toBe('allow');
    const { call: bare } = guardFor({ 'policy/empty.rules': 'base x(A).' });
    expect((await bare('create_task', 'write', {})).decision).toBe('require_approval');
  });

  test('a read tool can be guarded too, and constant arguments must match', async () => {
    const { call } = guardFor({
      'policy/reads.rules': 'search_emails(label: "leads") requires team_time(H, _), H >= 8.',
    });
    expect((await call('search_emails', 'read', { label: 'leads' })).decision).toBe('allow');
    const other = await call('search_emails', 'read', { label: 'hr' });
    expect(other.decision).toBe('deny');
    expect(other.reason).toContain('not allowed with these arguments');
  });

  test("the solver's own fetches are guarded without fetching again (no recursion)", async () => {
    const { call, calls } = guardFor({
      ...DEFAULT_RULEBASE_FILES,
      'policy/reads.rules': 'get_contact_sms_history(Phone) requires known_contact(Phone).',
    });
    const fromSolver = await call('get_contact_sms_history', 'read', { phone: MARIA }, 'solver');
    expect(fromSolver.decision).toBe('deny');
    expect(fromSolver.missing?.tools).toEqual([
      `search_contacts(query: "${MARIA}") (not fetched during this check)`,
    ]);
    expect(calls).toEqual([]);
    // Once the model's own call has fetched the contact, the solver-origin check passes from the store.
    expect((await call('get_contact_sms_history', 'read', { phone: MARIA })).decision).toBe('allow');
    expect((await call('get_contact_sms_history', 'read', { phone: MARIA }, 'solver')).decision).toBe(
      'allow',
    );
    expect(calls).toHaveLength(1);
  });

  test('a failing data tool blocks with the tool to retry', async () => {
    const facts = new InMemoryFactStore();
    const policy = createPolicyGuard({
      rulebase: loadRulebases({ ...DEFAULT_RULEBASE_FILES }),
      facts,
      conversationId: 'c1',
    });
    const v = await policy.check(
      {
        tool: 'send_message',
        kind: 'write',
        args: { to: MARIA, text: 'Hi' },
        origin: 'planner',
        conversationId: 'c1',
      },
      {
        now: NOON,
        timezone: 'America/New_York',
        callReadTool: async () => {
          throw new Error('OpenPhone rate limit');
        },
      },
    );
    expect(v.decision).toBe('deny');
    expect(v.missing).toEqual({
      tools: [`search_contacts(query: "${MARIA}") (OpenPhone rate limit)`],
      questions: [],
    });
    expect(v.reason).toContain('Missing: data from search_contacts');
  });
});

describe('wiring errors', () => {
  test('a registry without a tool the rulebase guards is a load error at creation', () => {
    expect(() =>
      createPolicyGuard({
        rulebase: loadRulebases({ ...DEFAULT_RULEBASE_FILES }),
        facts: new InMemoryFactStore(),
        conversationId: 'c1',
        tools: SPEC_TOOLS.filter((t) => t.name !== 'escalate'),
      }),
    ).toThrow(RulebaseError);
  });

  test('context bindings must be declared; a guard serves one conversation; the timezone must exist', async () => {
    const rulebase = loadRulebases({ ...DEFAULT_RULEBASE_FILES });
    expect(() =>
      createPolicyGuard({
        rulebase,
        facts: new InMemoryFactStore(),
        conversationId: 'c1',
        context: { nope: 'x' },
      }),
    ).toThrow(PolicyConfigError);
    const policy = createPolicyGuard({ rulebase, facts: new InMemoryFactStore(), conversationId: 'c1' });
    const call: ToolCallRequest = {
      tool: 'create_task',
      kind: 'write',
      args: {},
      origin: 'model',
      conversationId: 'c2',
    };
    await expect(
      policy.check(call, { now: NOON, timezone: 'UTC', callReadTool: async () => ({}) }),
    ).rejects.toThrow(PolicyConfigError);
    await expect(
      policy.check(
        { ...call, conversationId: 'c1' },
        { now: NOON, timezone: 'Mars/Olympus', callReadTool: async () => ({}) },
      ),
    ).rejects.toThrow(/unknown timezone/);
  });

  test('answers only for askable predicates, facts only for base predicates', async () => {
    const policy = createPolicyGuard({
      rulebase: loadRulebases({ ...DEFAULT_RULEBASE_FILES }),
      facts: new InMemoryFactStore(),
      conversationId: 'c1',
    });
    await expect(policy.recordAnswer('qualified_lead(ct_lead)', { by: 'sam', now: NOON })).rejects.toThrow(
      /not askable/,
    );
    await expect(policy.recordAnswer('credit_score(ct_lead, S)', { by: 'sam', now: NOON })).rejects.toThrow(
      /ground/,
    );
    await expect(
      policy.recordFacts(
        [{ predicate: 'qualified_lead', args: ['ct_lead'] }],
        { kind: 'tool', detail: 'x' },
        NOON,
      ),
    ).rejects.toThrow(/not a base predicate/);
  });
});
