import { describe, expect, test } from 'vitest';
import { whySentences } from './why-sentences';

const MARIA = '+14155550111';
const maria = { address: MARIA, name: 'Maria Lopez', role: 'tenant' };

describe('why in sentences (cards #18)', () => {
  test('a text to a tenant: who she is, where it goes from, no rule trace or number', () => {
    const lines = [
      `send_message("${MARIA}", "Hi") — by the rule at policy/messaging.rules:34`,
      `  known_contact("${MARIA}") — by the rule at policy/messaging.rules:16`,
      `    contact("${MARIA}", ct_maria, false) — from search_contacts(query: "${MARIA}"), valid until 10:05`,
      `  sending_line("${MARIA}", shared) — by the rule at policy/messaging.rules:23`,
      `    external_contact("${MARIA}") — by the rule at policy/messaging.rules:18`,
      `      contact("${MARIA}", ct_maria, false) — as above`,
      `  may_text_now("${MARIA}") — by the rule at policy/messaging.rules:30`,
      '    not quiet_hours — nothing establishes it',
    ];
    const s = whySentences(lines, [maria]);
    expect(s).toEqual([
      'Maria Lopez is in the contacts as tenant — from the contacts.',
      'Texts to people outside the team go from the shared line.',
      'Maria Lopez is outside the team (tenant).',
      'Maria Lopez may be texted now.',
      'It is not quiet hours (21:00–08:00).',
    ]);
    expect(s.join(' ')).not.toMatch(/policy\/|\+1415|_/);
  });

  test('a verdict in prose is kept; a line that is code but no atom stays in the trace only', () => {
    expect(
      whySentences([
        'send_message(+14155550111) requires known_contact(+14155550111)',
        'Texts to team members need no approval.',
        'send_message guard',
      ]),
    ).toEqual(['Texts to team members need no approval.']);
  });

  test('a lead: the facts from the email and the person who answered', () => {
    const cara = 'cara.singh@mail.example';
    const s = whySentences(
      [
        `qualified_lead("${cara}") — by the rule at policy/leads.rules:33`,
        `  credit_score("${cara}", 640) — from email msg_1`,
        `  credit_review_passed("${cara}") — answered by Sam Chen`,
        `  pet("${cara}", rabbit) — from email msg_1`,
        `  pet_approved("${cara}", rabbit) — answered by Sam Chen`,
      ],
      [{ address: cara, name: 'Cara Singh' }],
    );
    expect(s).toEqual([
      'Cara Singh meets the rental criteria.',
      'Cara Singh’s credit score is 640 — from their email.',
      'Cara Singh: credit review passed — answered by Sam Chen.',
      'Cara Singh has a rabbit — from their email.',
      'Cara Singh: pet approved (rabbit) — answered by Sam Chen.',
    ]);
  });
});
