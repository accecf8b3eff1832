import { describe, expect, test } from 'vitest';
import { loadDefaultRulebase } from './defaults';
import { RulebaseError } from './errors';
import { loadRulebase, loadRulebases } from './load';
import { type ToolInfo, writesWithoutGuard } from './rulebase';
import { SPEC_TOOLS, SPEC_WRITE_TOOLS } from './spec-tools';

function loadError(text: string, tools?: ToolInfo[]): RulebaseError {
  try {
    loadRulebase(text, { file: 'team.rules', ...(tools ? { tools } : {}) });
  } catch (e) {
    if (e instanceof RulebaseError) return e;
    throw e;
  }
  throw new Error('expected the rulebase to be rejected');
}

const BASE = 'base score(L, S).\nbase dog(L).\n';

describe('load-time validation', () => {
  test.each([
    [
      'unbound head variable',
      `${BASE}qualified(L, Extra) :- score(L, S), S >= 670.`,
      3,
      14,
      'unbound head variable',
    ],
    ['unsafe negation', `${BASE}no_dog(L) :- not dog(L).`, 3, 22, 'unsafe negation'],
    [
      'unsafe negation after its binder',
      `${BASE}ok(L) :- not dog(L), score(L, _).`,
      3,
      18,
      'unsafe negation',
    ],
    [
      'unknown predicate',
      `${BASE}qualified(L) :- score(L, S), credit(L, S).`,
      3,
      30,
      "unknown predicate 'credit'",
    ],
    [
      'unbound comparison',
      `${BASE}high(L) :- score(L, _), S > 700.`,
      3,
      25,
      'not bound before this comparison',
    ],
    ['arity mismatch', `${BASE}q(L) :- score(L).`, 3, 9, 'takes 2 argument(s)'],
    [
      'negation cycle',
      `${BASE}p(L) :- score(L, _), not q(L).\nq(L) :- score(L, _), not p(L).`,
      3,
      22,
      'negation cycle',
    ],
    ['base predicate redefined by a rule', `${BASE}dog(L) :- score(L, _).`, 3, 1, 'cannot also be derived'],
    ['ttl on a derived predicate', `${BASE}q(L) :- score(L, _).\nttl q 5m.`, 4, 1, 'not a base predicate'],
    ['askable question names an unknown variable', 'askable pet(L) "Is {Kind} ok?".', 1, 1, '{Kind}'],
    [
      'binding output never read',
      'bind c(P, Id) from search_contacts(query: P).',
      1,
      11,
      'neither a tool argument',
    ],
    ['builtin input unbound', 'long(T) :- length(T, N), N > 3.', 1, 19, 'must be bound before'],
  ])('%s is rejected with its line number', (_name, text, line, column, message) => {
    const e = loadError(text);
    const issue = e.issues.find((i) => i.message.includes(message));
    expect(issue, JSON.stringify(e.issues)).toMatchObject({ file: 'team.rules', line, column });
  });

  test('every issue is reported, sorted by position', () => {
    const e = loadError(`${BASE}a(X) :- b(X).\nc(Y) :- not dog(Y).`);
    expect(e.issues.map((i) => i.line)).toEqual([3, 4, 4]);
    expect(e.issues.map((i) => i.message).join('\n')).toMatch(/unknown predicate 'b'[\s\S]*unsafe negation/);
  });

  test('safe rules load: anonymous variables in negation, assignments, facts', () => {
    const rb = loadRulebase(
      `${BASE}no_score(L) :- dog(L), not score(L, _).\nnext(L, N) :- score(L, S), N = S + 1.\nlevel(good).`,
    );
    expect([...rb.rules.keys()]).toEqual(['no_score', 'next', 'level']);
  });

  test('a guard naming an unknown tool is a load error when the registry is known', () => {
    const e = loadError('sned_message(To) requires true.', SPEC_TOOLS);
    expect(e.issues[0]).toMatchObject({ line: 1 });
    expect(e.message).toContain("unknown tool 'sned_message'");
  });

  test('bindings may call read tools only; autonomous rules name writes only', () => {
    expect(loadError('bind c(P) from send_message(to: P).', SPEC_TOOLS).message).toContain('a write tool');
    expect(loadError('autonomous search_contacts when true.', SPEC_TOOLS).message).toContain('read tool');
  });

  test('files are validated as one rulebase, errors name their file', () => {
    const rb = loadRulebases({ 'policy/a.rules': 'base s(X).', 'policy/b.rules': 'q(X) :- s(X).' });
    expect(rb.files).toEqual(['policy/a.rules', 'policy/b.rules']);
    try {
      loadRulebases({ 'policy/a.rules': 'base s(X).', 'policy/b.rules': 'q(X) :- s(X), t(X).' });
      throw new Error('expected an error');
    } catch (e) {
      expect(e).toBeInstanceOf(RulebaseError);
      expect((e as RulebaseError).file).toBe('policy/b.rules');
    }
  });
});

describe('default rulebases', () => {
  test('load cleanly against the SPEC tool registry with no warnings', () => {
    const rb = loadDefaultRulebase({ tools: SPEC_TOOLS });
    expect(rb.warnings).toEqual([]);
    // Only the in-channel reply to a team member, and paging when the team setting says so, may skip approval.
    expect([...rb.autonomous.keys()]).toEqual(['reply_to_sender', 'escalate']);
  });

  test('every write tool in the registry has a guard', () => {
    const rb = loadDefaultRulebase({ tools: SPEC_TOOLS });
    const writes = SPEC_TOOLS.filter((t) => t.kind === 'write').map((t) => t.name);
    expect(writes).toEqual([...SPEC_WRITE_TOOLS]);
    for (const w of writes) expect(rb.guards.get(w), w).toBeDefined();
    expect(writesWithoutGuard(rb, SPEC_TOOLS)).toEqual([]);
    expect(writesWithoutGuard(rb, [...SPEC_TOOLS, { name: 'wire_money', kind: 'write' }])).toEqual([
      'wire_money',
    ]);
  });
});
