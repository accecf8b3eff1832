import { describe, expect, test } from 'vitest';
import { DEMO_PEOPLE } from '../../../../scripts/emulators/seed/demo-team';
import type { ToolCallRequest } from '../tool-guard';
import { loadDefaultRulebase } from './defaults';
import { createPolicyGuard } from './guard';
import { InMemoryFactStore } from './in-memory-fact-store';
import { SPEC_TOOLS } from './spec-tools';

const rulebase = loadDefaultRulebase({ tools: SPEC_TOOLS });
const MARIA = '+14155550111'; // external (tenant)
const SAM = '+14155550102'; // internal (property manager)

/** Like OpenPhone's fuzzy search: every contact comes back, the binding must keep only the exact number. */
const searchContacts = async () => ({
  contacts: DEMO_PEOPLE.map((p) => ({
    id: p.id,
    name: `${p.firstName} ${p.lastName}`,
    phones: [p.phone],
    internal: p.internal,
  })),
});

function setup(timezone = 'America/New_York') {
  const facts = new InMemoryFactStore();
  const calls: string[] = [];
  const policy = createPolicyGuard({ rulebase, facts, conversationId: 'sms-conv', tools: SPEC_TOOLS });
  const env = (iso: string) => ({
    now: new Date(iso),
    timezone,
    async callReadTool(name: string, args: Record<string, unknown>) {
      calls.push(`${name} ${JSON.stringify(args)}`);
      if (name !== 'search_contacts') throw new Error(`unexpected ${name}`);
      return searchContacts();
    },
  });
  const text = (to: string, iso: string, origin: ToolCallRequest['origin'] = 'model') =>
    policy.check(
      { tool: 'send_message', kind: 'write', args: { to, text: 'Hi' }, origin, conversationId: 'sms-conv' },
      env(iso),
    );
  return { policy, facts, calls, env, text };
}

describe('messaging guard', () => {
  test('a known external contact in the day: passes with a derivation, still needs approval', async () => {
    const { text, calls } = setup();
    const v = await text(MARIA, '2025-01-15T15:00:00Z');
    expect(v.decision).toBe('require_approval');
    expect(v.missing).toBeUndefined();
    const why = v.why?.join('\n') ?? '';
    expect(why).toContain(`known_contact("${MARIA}") — by the rule at policy/messaging.rules:`);
    expect(why).toContain(
      `contact("${MARIA}", ct_maria, false) — from search_contacts(query: "${MARIA}"), valid until 10:05`,
    );
    expect(why).toContain(`sending_line("${MARIA}", shared)`);
    expect(why).toContain('not quiet_hours — nothing establishes it');
    expect(calls).toEqual([`search_contacts {"query":"${MARIA}"}`]);
  });

  test('an unknown recipient is refused with the reason', async () => {
    const { text } = setup();
    const v = await text('+19995550000', '2025-01-15T15:00:00Z');
    expect(v.decision).toBe('deny');
    expect(v.reason).toContain('could not establish known_contact("+19995550000")');
    expect(v.missing).toEqual({ tools: [], questions: [] });
  });

  test('the sending line follows the contact type', async () => {
    const { policy, env } = setup();
    const e = env('2025-01-15T15:00:00Z');
    const internal = await policy.query(`sending_line("${SAM}", Line)`, e);
    const external = await policy.query(`sending_line("${MARIA}", Line)`, e);
    expect(internal.answers.map((a) => a.bindings.Line)).toEqual(['assistant']);
    expect(external.answers.map((a) => a.bindings.Line)).toEqual(['shared']);
  });

  test('blocked at night: the verdict says what is missing (a question), and a "yes" unblocks it', async () => {
    const { policy, text } = setup();
    const v = await text(MARIA, '2025-01-16T03:00:00Z');
    expect(v.decision).toBe('deny');
    expect(v.reason).toContain(`could not establish may_text_now("${MARIA}")`);
    expect(v.missing?.questions).toEqual([
      'It is quiet hours (21:00-08:00 team time) for external contacts. Is this urgent enough to text now?',
    ]);
    expect(v.why?.join('\n')).toContain(`known_contact("${MARIA}")`);
    await policy.recordAnswer('urgent', {
      by: 'jo@oakproperties.example',
      now: new Date('2025-01-16T03:01:00Z'),
    });
    const after = await text(MARIA, '2025-01-16T03:02:00Z');
    expect(after.decision).toBe('require_approval');
    expect(after.why?.join('\n')).toContain('urgent — answered by jo@oakproperties.example');
  });

  test('team members can be texted at any hour', async () => {
    const { text } = setup();
    const v = await text(SAM, '2025-01-16T04:30:00Z');
    expect(v.decision).toBe('require_approval');
    expect(v.why?.join('\n')).toContain(`sending_line("${SAM}", assistant)`);
  });

  test('a missing recipient argument cannot slip past the guard', async () => {
    const { policy, env } = setup();
    const v = await policy.check(
      {
        tool: 'send_message',
        kind: 'write',
        args: { text: 'Hi' },
        origin: 'model',
        conversationId: 'sms-conv',
      },
      env('2025-01-15T15:00:00Z'),
    );
    expect(v.decision).toBe('deny');
  });
});

describe('quiet hours (21:00-08:00 team time, external contacts)', () => {
  const cases: Array<[string, string, 'open' | 'quiet']> = [
    ['20:59 EST', '2025-01-16T01:59:00Z', 'open'],
    ['21:00 EST', '2025-01-16T02:00:00Z', 'quiet'],
    ['23:59 EST', '2025-01-16T04:59:00Z', 'quiet'],
    ['00:00 EST (midnight)', '2025-01-16T05:00:00Z', 'quiet'],
    ['00:01 EST', '2025-01-16T05:01:00Z', 'quiet'],
    ['07:59 EST', '2025-01-16T12:59:00Z', 'quiet'],
    ['08:00 EST', '2025-01-16T13:00:00Z', 'open'],
    // Spring forward, 2025-03-09: from 02:00 the offset is -4. A fixed -5 would get each of these wrong.
    ['08:00 EDT on the spring-forward day', '2025-03-09T12:00:00Z', 'open'],
    ['07:59 EDT on the spring-forward day', '2025-03-09T11:59:00Z', 'quiet'],
    ['21:00 EDT on the spring-forward day', '2025-03-10T01:00:00Z', 'quiet'],
    // Fall back, 2025-11-02: from 02:00 EDT the clock reads 01:00 EST again.
    ['07:30 EST on the fall-back day', '2025-11-02T12:30:00Z', 'quiet'],
    ['08:00 EST on the fall-back day', '2025-11-02T13:00:00Z', 'open'],
    ['01:30 EDT (first pass) on the fall-back day', '2025-11-02T05:30:00Z', 'quiet'],
    ['01:30 EST (second pass) on the fall-back day', '2025-11-02T06:30:00Z', 'quiet'],
  ];
  test.each(cases)('%s → %s', async (_label, iso, expected) => {
    const { text } = setup();
    const v = await text(MARIA, iso);
    expect(v.decision).toBe(expected === 'open' ? 'require_approval' : 'deny');
  });

  test('follows the team timezone given at check time', async () => {
    // 15:00Z is 07:00 in Los Angeles (quiet) but 10:00 in New York (open).
    expect((await setup('America/Los_Angeles').text(MARIA, '2025-01-15T15:00:00Z')).decision).toBe('deny');
    expect((await setup('America/New_York').text(MARIA, '2025-01-15T15:00:00Z')).decision).toBe(
      'require_approval',
    );
  });
});
