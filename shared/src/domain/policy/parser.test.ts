import { describe, expect, test } from 'vitest';
import { RulebaseError } from './errors';
import { parseQueryText, parseRulebaseText } from './parser';

function parseError(src: string, file = 'p.rules'): RulebaseError {
  try {
    parseRulebaseText(src, file);
  } catch (e) {
    if (e instanceof RulebaseError) return e;
    throw e;
  }
  throw new Error('expected a RulebaseError');
}

describe('rulebase parser', () => {
  test('parses every statement kind', () => {
    const stmts = parseRulebaseText(
      [
        'context lead_of_interest "The lead" .',
        'context current_user fixed.',
        'context booking_of_interest where user_booking(current_user, booking_of_interest).',
        'bind contact(P, Id) from search_contacts(query: P) each "contacts[*]" { P: "phones[*]", Id: "id" }.',
        'ttl contact 90s.',
        'ttl pet never.',
        'askable pet(L, K) "Does {L} have pets?".',
        'base today(D).',
        'qualified(L) :- score(L, S), S >= 600 + 70, not dog(L).',
        'pet_rule(dog, refused).',
        'send_message(To, Body) requires known(To), not quiet_hours.',
        'create_task requires true.',
        'autonomous send_message(To, Body) when known(To), length(Body, N), N <= 160.',
      ].join('\n'),
      'all.rules',
    );
    expect(stmts.map((s) => s.kind)).toEqual([
      'context',
      'context',
      'context',
      'bind',
      'ttl',
      'ttl',
      'askable',
      'base',
      'rule',
      'rule',
      'guard',
      'guard',
      'autonomous',
    ]);
    const ttl = stmts.filter((s) => s.kind === 'ttl');
    expect(ttl.map((t) => (t.kind === 'ttl' ? t.seconds : undefined))).toEqual([90, null]);
    const rule = stmts[8];
    expect(rule?.kind === 'rule' && rule.body.map((l) => l.kind)).toEqual(['atom', 'cmp', 'atom']);
    expect(rule?.pos).toEqual({ file: 'all.rules', line: 9, column: 1 });
    const guard = stmts[10];
    expect(guard?.kind === 'guard' && guard.params.map((p) => p.key)).toEqual(['To', 'Body']);
    expect(guard?.kind === 'guard' && guard.text).toBe(
      'send_message(To, Body) requires known(To), not quiet_hours.',
    );
  });

  test('numbers, strings with escapes, comments and negative constants', () => {
    const [r] = parseRulebaseText('% a comment\nx(A) :- y(A, "say \\"hi\\"", -3.5). % trailing\n');
    expect(r?.kind).toBe('rule');
    if (r?.kind !== 'rule') return;
    const lit = r.body[0];
    expect(lit?.kind === 'atom' && lit.atom.args.map((a) => (a.kind === 'const' ? a.value : a.name))).toEqual(
      ['A', 'say "hi"', -3.5],
    );
  });

  test.each([
    ['missing closing parenthesis', 'ok(a).\nfoo(X :- bar(X).', 2, 7, "expected ',' or ')'"],
    ['unterminated string', 'askable p(X) "never closed.\n', 1, 14, 'unterminated string'],
    ['stray character', 'p(a).\nq(b) :- p(b) & r.', 2, 14, "unexpected character '&'"],
    [
      'missing full stop at end of file',
      'p(a).\nq(X) :- p(X)',
      2,
      13,
      "expected '.' to end the rule but found end of file",
    ],
    ['duration without unit', 'base p(X).\nttl p 5.', 2, 8, 'expected a duration unit'],
    ['keyword as predicate', 'not(X) :- p(X).', 1, 1, 'keyword'],
    ['comparing a predicate', 'p(X) :- q(X) > 3.', 1, 14, 'cannot be compared'],
  ])('%s → error at line and column', (_name, src, line, column, message) => {
    const e = parseError(src);
    expect(e.line).toBe(line);
    expect(e.column).toBe(column);
    expect(e.file).toBe('p.rules');
    expect(e.issues[0]?.message).toContain(message);
    expect(e.message).toContain(`p.rules:${line}:${column}`);
  });

  test('reports errors of later statements too (recovers at the next full stop)', () => {
    const e = parseError('p(a.\nq(b).\nr(X :- q(X).\n');
    expect(e.issues.map((i) => i.line)).toEqual([1, 3]);
  });

  test('queries are bodies, with an optional full stop', () => {
    expect(parseQueryText('booking_status(booking_of_interest, S)')).toHaveLength(1);
    expect(parseQueryText('credit_score(L, S), S >= 600.')).toHaveLength(2);
  });
});
