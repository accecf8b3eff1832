import { describe, expect, it } from 'vitest';
import { rulesPlan } from './rules-planner';
import { chatInput } from './rules-planner/chat-input.test-fixture';
import { askFor, mergeAnswer, splitRecipient } from './slot-filling';
import type { Plan } from './types';

const NOW = new Date('2026-11-23T15:00:00Z');
const ctx = { now: NOW, timezone: 'America/New_York' };

function chat(
  text: string,
  pending?: { intent: string; slots: Record<string, unknown>; missing: string[] },
): Plan {
  return rulesPlan(chatInput(text, { ...ctx, ...(pending ? { pending } : {}) }));
}

describe('slot filling for write intents', () => {
  it('"send an email" alone starts it, asking for every missing slot in one message', () => {
    const plan = chat('send an email');
    expect(plan).toMatchObject({
      kind: 'ask',
      intent: { intent: 'send_email', missing: ['recipient', 'subject', 'body'] },
    });
    expect(plan.kind === 'ask' && plan.text).toBe(
      'To send the email I need who to send it to, the subject and what the email should say. Answer in any order, in one message or several (for example “subject: …”).',
    );
  });

  it('"Text +1 555 000 9999 hello" separates the number and the body', () => {
    expect(splitRecipient('+1 555 000 9999 hello')).toEqual({ recipient: '+15550009999', rest: 'hello' });
    const plan = chat('Text +1 555 000 9999 hello');
    expect(plan).toMatchObject({
      kind: 'calls',
      calls: [{ name: 'search_contacts', args: { query: '+15550009999' } }],
    });
    expect(splitRecipient('Maria')).toEqual({ recipient: 'Maria' });
  });

  it('merges answers in any order, labelled or not', () => {
    const missing = ['recipient', 'subject', 'body'];
    const a = mergeAnswer('send_email', {}, missing, 'subject: Water shutoff Thursday', ctx);
    expect(a).toEqual({ subject: 'Water shutoff Thursday' });
    const b = mergeAnswer('send_email', a, missing, 'maria@mail.example', ctx);
    expect(b).toMatchObject({ recipient: 'maria@mail.example' });
    const c = mergeAnswer('send_email', b, missing, 'The water will be off from 9 to 11.', ctx);
    expect(c).toEqual({
      subject: 'Water shutoff Thursday',
      recipient: 'maria@mail.example',
      body: 'The water will be off from 9 to 11.',
    });
    expect(
      mergeAnswer('send_email', {}, missing, 'to: bob@mail.example\nbody: hello\nsubject: hi', ctx),
    ).toEqual({
      recipient: 'bob@mail.example',
      body: 'hello',
      subject: 'hi',
    });
    expect(mergeAnswer('send_email', {}, missing, 'Maria', ctx)).toEqual({ recipient: 'Maria' });
  });

  it('a follow-up fills the slots and the plan moves on; what is still missing is asked again, alone', () => {
    const pending = { intent: 'send_email', slots: {}, missing: ['recipient', 'subject', 'body'] };
    const plan = chat('subject: Lease renewal', pending);
    expect(plan).toMatchObject({ kind: 'ask', intent: { missing: ['recipient', 'body'] } });
    expect(askFor('send_email', ['body'])).toBe('What should the email say?');
  });
});
