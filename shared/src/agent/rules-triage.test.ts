import { describe, expect, it } from 'vitest';
import { memorySeedFiles } from '../domain/memory-seed';
import { rulesPlan } from './rules-planner';
import {
  classLine,
  emailReply,
  factsFor,
  factsLine,
  greeting,
  nameFromText,
  smsReply,
  welcomeReply,
} from './rules-triage';
import type { PlannerInput, TriageNote } from './types';

const note = (triageClass: TriageNote['triageClass'], extra: Partial<TriageNote> = {}): TriageNote => ({
  triageClass,
  confidence: 0.9,
  cues: ['faucet', 'dripping'],
  byKeywordFloor: false,
  ...extra,
});

describe('greetings', () => {
  it('use a real first name or none', () => {
    expect(greeting('Maria Lopez')).toBe('Hi Maria,');
    expect(greeting('')).toBe('Hi,');
    expect(greeting(undefined)).toBe('Hi,');
    expect(greeting('  ')).toBe('Hi,');
    expect(greeting('+14155550177')).toBe('Hi,');
  });

  it('an email from an address with no display name is answered "Hi," (never "Hi ,")', () => {
    const input: PlannerInput = {
      trigger: {
        kind: 'inbound_email',
        count: 1,
        email: {
          messageId: 'm1',
          threadId: 't1',
          from: 'tenant4b@example.org',
          to: 'office@oak.example',
          subject: 'dishwasher',
          date: new Date().toISOString(),
          text: 'the dishwasher is not draining',
          labels: ['INBOX'],
          source: 'general',
        },
        triage: note('maintenance'),
      },
      observations: [
        { name: 'search_contacts', args: {}, status: 'ok', result: { contacts: [] } },
        // The read round: the team's notes, and a skill look-up that found none (follow #20).
        { name: 'read_file', args: { path: 'MEMORY.md' }, status: 'ok', result: { content: '# Memory' } },
        { name: 'load_skill', args: { intent: 'inbound_email' }, status: 'ok', result: { found: false } },
      ],
      now: new Date(),
      timezone: 'UTC',
      hasTool: () => true,
    };
    const plan = rulesPlan(input);
    expect(plan.kind).toBe('calls');
    const call = plan.kind === 'calls' ? plan.calls[0] : undefined;
    expect(String(call?.args.body)).toMatch(/^Hi,\n/);
    expect(call?.reason).toMatch(/maintenance request · “faucet”, “dripping”/);
  });
});

describe('what a card and a reply say', () => {
  it('names the class and why, the kind for emergencies, and the keywords when the floor decided', () => {
    expect(classLine(note('maintenance'), 'tenant')).toBe(
      'maintenance request · “faucet”, “dripping” · tenant',
    );
    // The thing the text named comes first; a cue it already says is not repeated.
    expect(classLine(note('maintenance', { subject: 'the kitchen faucet' }), 'tenant of 4B')).toBe(
      'maintenance request · kitchen faucet · “dripping” · tenant of 4B',
    );
    expect(classLine(note('emergency', { kind: 'gas', cues: ['smell gas'], byKeywordFloor: true }))).toBe(
      'gas emergency · keywords “smell gas”',
    );
  });

  it('has a reply for every class with no blank left to fill', () => {
    for (const c of [
      'maintenance',
      'lead',
      'showing',
      'rent',
      'lease',
      'vendor_confirmation',
      'other',
    ] as const) {
      const reply = smsReply(note(c), 'Maria Lopez', false);
      expect(reply).toMatch(/^Hi Maria, /);
      expect(reply).not.toMatch(/\[|\{|undefined|TBD|XX/);
    }
    const urgent = smsReply(note('emergency', { kind: 'gas' }), undefined, true);
    expect(urgent).toMatch(/^Hi, we got your message about the gas emergency and are treating it as urgent/);
    expect(urgent).toMatch(/leave the unit/);
    // A repair names what it is about, so three texts about one leak are never answered as if about nothing.
    expect(smsReply(note('maintenance', { subject: 'the kitchen sink' }), 'Maria Lopez', false)).toMatch(
      /^Hi Maria, thanks for letting us know about the kitchen sink — we've received it/,
    );
    expect(welcomeReply(undefined, note('lead'))).toMatch(
      /^Hi, thanks for reaching out[\s\S]*May we have your name/,
    );
  });

  it('reads a name only where the sender gave one', () => {
    expect(nameFromText('Hi, my name is Jenna Park. Is the 2 bedroom still available?')).toBe('Jenna Park');
    expect(nameFromText("Hi I'm Interested in the studio")).toBeUndefined();
    expect(nameFromText('is the studio still available?')).toBeUndefined();
    expect(nameFromText('This is Carlos, is the loft open?')).toBe('Carlos');
  });

  it('takes a name signed at the end, and not a closing word, a day or an address', () => {
    expect(nameFromText('is the 2 bedroom on Elm still available? credit is about 730, no pets. Ana')).toBe(
      'Ana',
    );
    expect(nameFromText('hi is the studio still open, we have a cat. thanks, Ana Ruiz')).toBe('Ana Ruiz');
    expect(nameFromText('Is the loft still for rent - Marcus')).toBe('Marcus');
    expect(nameFromText('Is the loft still for rent? Thanks Marcus')).toBe('Marcus');
    expect(nameFromText('is the 1 bed still available? Thanks!')).toBeUndefined();
    expect(nameFromText('can I see the studio this week? Saturday')).toBeUndefined();
    expect(nameFromText('is the unit available. 14 Oak St')).toBeUndefined();
    expect(nameFromText('is the unit at the corner available. Oak St')).toBeUndefined();
    expect(nameFromText('Ana')).toBeUndefined();
    expect(nameFromText('is the studio available? Call me')).toBeUndefined();
  });
});

describe('drafts that answer from the team notes', () => {
  const MEMORY = [
    '# Memory',
    '- Rent is due on the 1st; the late fee applies from the 6th (noted 2026-10-02)',
    '- The water shutoff for 12 Oak St is in the basement, left of the stairs (noted 2026-09-14)',
    '- Office hours are 9-5 on weekdays',
  ].join('\n');

  it('uses the line that answers the class or the kind, and says plainly when there is none', () => {
    expect(factsFor(note('rent'), MEMORY)).toEqual([
      'Rent is due on the 1st; the late fee applies from the 6th.',
    ]);
    expect(factsFor(note('emergency', { kind: 'water' }), MEMORY)).toEqual([
      'The water shutoff for 12 Oak St is in the basement, left of the stairs.',
    ]);
    expect(factsFor(note('lease'), MEMORY)).toEqual([]);
    expect(factsLine(note('lease'), [], true)).toMatch(/MEMORY.md has nothing on this/);
  });

  it('a rent question from a tenant is answered with the due day, after reading the notes', () => {
    const base: PlannerInput = {
      trigger: {
        kind: 'inbound_sms',
        from: '+14155550112',
        texts: ['Is the rent due on the 1st or the 5th?'],
        urgent: false,
        triage: note('rent', { cues: ['rent', 'due'] }),
      },
      observations: [
        {
          name: 'search_contacts',
          args: {},
          status: 'ok',
          result: {
            contacts: [{ name: 'David Kim', phones: ['+14155550112'], emails: [], internal: false }],
          },
        },
      ],
      now: new Date(),
      timezone: 'UTC',
      hasTool: () => true,
    };
    // One read round: the notes, and the team's skill for inbound texts (if any).
    expect(rulesPlan(base)).toMatchObject({
      kind: 'calls',
      calls: [
        { name: 'read_file', args: { path: 'MEMORY.md' } },
        { name: 'load_skill', args: { intent: 'inbound_sms' } },
      ],
    });
    const plan = rulesPlan({
      ...base,
      observations: [
        ...base.observations,
        { name: 'read_file', args: { path: 'MEMORY.md' }, status: 'ok', result: { content: MEMORY } },
        { name: 'load_skill', args: { intent: 'inbound_sms' }, status: 'ok', result: { found: false } },
      ],
    });
    const call = plan.kind === 'calls' ? plan.calls[0] : undefined;
    expect(call?.name).toBe('send_message');
    expect(String(call?.args.text)).toMatch(
      /^Hi David, thanks for your message about rent[\s\S]*From our notes: Rent is due on the 1st/,
    );
    expect(call?.reason).toMatch(/rent \/ payments · “rent”, “due” · answered from MEMORY.md/);
  });
});

describe('facts quoted to a tenant come from the notes, never from the workspace guide', () => {
  const seeded = memorySeedFiles({ teamName: 'Oak Properties', timezone: 'America/Los_Angeles' }).find(
    (f) => f.path === 'MEMORY.md',
  )?.content;

  it('the seeded MEMORY.md answers nothing (its guide mentions repairs, leads and showings)', () => {
    expect(seeded).toBeDefined();
    for (const triageClass of ['maintenance', 'lead', 'showing', 'rent', 'lease', 'other'] as const) {
      expect(factsFor({ triageClass } as TriageNote, seeded ?? ''), triageClass).toEqual([]);
    }
  });

  it("a fact the team added is quoted whole, wrapped lines joined, without its '(noted …)' stamp", () => {
    const memory = `${seeded}\n- Repairs: the maintenance line for after-hours work orders is\n  (415) 555-0199, answered 24/7. (noted 2026-11-02)\n`;
    expect(factsFor({ triageClass: 'maintenance' } as TriageNote, memory)).toEqual([
      'Repairs: the maintenance line for after-hours work orders is (415) 555-0199, answered 24/7.',
    ]);
  });
});

describe('email replies by class (rules mode)', () => {
  const MEMORY = '# Memory\n- Rent is due on the 1st; the late fee applies from the 6th\n';
  const email = (triage: TriageNote, text: string): PlannerInput['trigger'] => ({
    kind: 'inbound_email',
    count: 1,
    email: {
      messageId: 'm1',
      threadId: 't1',
      from: 'David Kim <david.kim@mail.example>',
      to: 'office@oak.example',
      subject: 'question',
      date: new Date().toISOString(),
      text,
      labels: ['INBOX'],
      source: 'general',
    },
    triage,
  });
  const found = {
    name: 'search_contacts',
    args: {},
    status: 'ok' as const,
    result: {
      contacts: [
        {
          name: 'David Kim',
          phones: [],
          emails: ['david.kim@mail.example'],
          internal: false,
          role: 'tenant, 12 Oak St #2',
        },
      ],
    },
  };
  const input = (trigger: PlannerInput['trigger'], observations: PlannerInput['observations']) =>
    ({ trigger, observations, now: new Date(), timezone: 'UTC', hasTool: () => true }) as PlannerInput;

  it('a rent question is answered from the notes after one read round, not "Thank you for your email"', () => {
    const trigger = email(note('rent', { cues: ['rent'] }), 'when is rent due?');
    expect(rulesPlan(input(trigger, [found]))).toMatchObject({
      kind: 'calls',
      calls: [{ name: 'read_file' }, { name: 'load_skill', args: { intent: 'inbound_email' } }],
    });
    const plan = rulesPlan(
      input(trigger, [
        found,
        { name: 'read_file', args: { path: 'MEMORY.md' }, status: 'ok', result: { content: MEMORY } },
        { name: 'load_skill', args: {}, status: 'ok', result: { found: false } },
      ]),
    );
    const call = plan.kind === 'calls' ? plan.calls[0] : undefined;
    expect(call?.name).toBe('send_email');
    expect(String(call?.args.body)).toMatch(
      /^Hi David,\n\nThank you for your message about rent[\s\S]*From our notes: Rent is due on the 1st[\s\S]*Best regards,\nThe team$/,
    );
    expect(String(call?.args.body)).not.toMatch(/Thank you for your email/);
    // The card says the class, why, and who wrote as the team knows them.
    expect(call?.reason).toMatch(
      /rent \/ payments · “rent” · tenant, 12 Oak St #2 · answered from MEMORY.md/,
    );
  });

  it('a viewing request by email offers the calendar free times, read in the same round as the notes', () => {
    const trigger = email(note('showing'), 'could I see the flat this week?');
    const first = rulesPlan(input(trigger, [found]));
    expect(first.kind === 'calls' ? first.calls.map((c) => c.name) : []).toEqual([
      'read_file',
      'find_free_slots',
      'load_skill',
    ]);
    const slots = [{ label: 'Tue 25 Nov at 10:00' }, { label: 'Wed 26 Nov at 14:00' }];
    const plan = rulesPlan(
      input(trigger, [
        found,
        { name: 'read_file', args: {}, status: 'ok', result: { content: '# Memory' } },
        { name: 'find_free_slots', args: {}, status: 'ok', result: { slots } },
        { name: 'load_skill', args: {}, status: 'ok', result: { found: false } },
      ]),
    );
    const body = plan.kind === 'calls' ? String(plan.calls[0]?.args.body) : '';
    expect(body).toContain('We have openings on Tue 25 Nov at 10:00 or Wed 26 Nov at 14:00');
  });

  it('an emergency by email pages on-call first, then says so; unpaged, it says how to reach someone now', () => {
    const trigger = {
      ...email(note('emergency', { kind: 'water' }), 'water coming through the ceiling'),
      urgent: true,
    };
    const first = rulesPlan(input(trigger as PlannerInput['trigger'], []));
    expect(first).toMatchObject({
      kind: 'calls',
      calls: [{ name: 'escalate', args: { from: 'david.kim@mail.example' } }],
    });
    const pagedReply = emailReply(note('emergency', { kind: 'water' }), 'David Kim', { paged: true });
    expect(pagedReply).toMatch(
      /^Hi David,\n\nWe got your email about the water emergency and are treating it as urgent — our on-call person has been alerted/,
    );
    const body = emailReply(note('emergency', { kind: 'gas' }), 'David Kim');
    expect(body).toMatch(
      /^Hi David,\n\nThank you for telling us about the gas emergency\. If it is happening right now/,
    );
    expect(body).toMatch(/leave the unit/);
    expect(body).not.toMatch(/on-call person has been alerted/);
  });

  it('a thank-you ends the thread; a phishing mail is shown to the team, never answered', () => {
    expect(rulesPlan(input(email(note('thanks'), 'thanks so much!'), []))).toMatchObject({
      kind: 'no_action',
    });
    const scam = rulesPlan(input(email(note('scam', { cues: ['verify'] }), 'verify your account'), [found]));
    expect(scam).toMatchObject({ kind: 'respond' });
    expect(scam.kind === 'respond' ? scam.text : '').toMatch(/scam or phishing[\s\S]*drafted no reply/);
  });
});
