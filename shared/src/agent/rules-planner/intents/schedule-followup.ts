import type { FollowUpCondition } from '../../../contracts/followups';
import { extractPhones } from '../../../domain/extract';
import { parseFollowUpRequest, type SaidCondition } from '../../../domain/followup-parse';
import { conditionText, whenText } from '../../../domain/followups';
import type { Observation, Plan, PlannerInput } from '../../types';
import { call, contactsOf, firstName, outcome, respond } from '../helpers';
import type { ChatIntent, Slots } from '../intent';

/**
 * "Text Maria tomorrow at 9 if the plumber hasn't confirmed" / "remind me Friday at 3 to call the bank": a
 * card that binds the text, the time and the condition (schedule_followup). The person and the contact the
 * condition names are looked up first; a condition that cannot be understood is asked about, never dropped.
 */
export const scheduleFollowUpIntent: ChatIntent = {
  name: 'schedule_followup',
  required: ['recipient', 'at'],
  detect(text, input) {
    const said = parseFollowUpRequest(text, input.now, input.timezone);
    if (!said) return undefined;
    return { ...said } as Slots;
  },
  plan(input: PlannerInput, slots: Slots): Plan {
    if (!input.hasTool('schedule_followup'))
      return respond('Scheduled follow-ups need the scheduler, which is not configured here.');
    if (slots.conditionSaid && !slots.condition)
      return respond(
        `I can check “no reply from someone”, “no message mentioning a word”, “a task still open” or “an event not confirmed”, but not “${slots.conditionSaid}”. Say it one of those ways.`,
      );
    const done = input.observations.find((o) => o.name === 'schedule_followup');
    if (done)
      return respond(
        outcome(
          done,
          'Scheduled. It is listed in this conversation, where you can cancel it.',
          'schedule it',
        ),
      );
    const reminder = slots.kind === 'reminder';
    const target = reminder ? undefined : lookedUp(input.observations, slots.recipient as string);
    if (!reminder && !target) return lookup(slots.recipient as string, 'Find who gets the text');
    if (!reminder && !target?.found)
      return respond(
        `I could not find a contact called “${slots.recipient}”. Add them first, or give me their number.`,
      );
    const said = slots.condition as SaidCondition | undefined;
    const condition = said ? resolveCondition(input, said) : undefined;
    if (condition && 'lookup' in condition) return condition.lookup;
    if (condition && 'error' in condition) return respond(condition.error);
    const toName = reminder ? reminderName(input, slots.recipient as string) : (target?.name as string);
    const args = {
      kind: reminder ? 'reminder' : 'text',
      to: reminder ? reminderTo(input, slots.recipient as string) : (target?.phone as string),
      toName,
      text: (slots.text as string | undefined)?.trim() || defaultText(toName, said, condition?.value),
      at: slots.at as string,
      ...(condition ? { condition: condition.value } : {}),
    };
    return {
      kind: 'calls',
      calls: [
        {
          name: 'schedule_followup',
          args,
          reason: `${reminder ? 'Remind' : 'Text'} ${toName} at ${whenText(args.at, input.timezone)}, ${conditionText(condition?.value, input.timezone)}`,
        },
      ],
    };
  },
};

type Resolved = { value: FollowUpCondition } | { lookup: Plan } | { error: string };

function resolveCondition(input: PlannerInput, said: SaidCondition): Resolved {
  const since = input.now.toISOString();
  switch (said.kind) {
    case 'no_mention':
      return { value: { kind: 'no_mention', word: said.word, since } };
    case 'task_open':
      return { value: { kind: 'task_open', taskId: said.name, name: said.name } };
    case 'event_unconfirmed':
      return { value: { kind: 'event_unconfirmed', eventId: said.name, name: said.name } };
    case 'no_reply': {
      const who = lookedUp(input.observations, said.who);
      if (!who) return { lookup: lookup(said.who, `Find ${said.who}, whose reply decides it`) };
      if (!who.found || !who.phone)
        return {
          error: `I could not find “${said.who}” in the contacts, so I cannot watch for their reply.`,
        };
      return { value: { kind: 'no_reply', from: who.phone, name: who.name as string, since } };
    }
  }
}

function lookup(query: string, reason: string): Plan {
  const phone = extractPhones(query)[0];
  return call('search_contacts', { query: phone ?? query, limit: 3 }, reason);
}

/** The search_contacts result for `query` (this run may have looked up two people). */
function lookedUp(obs: Observation[], query: string) {
  const phone = extractPhones(query)[0];
  const o = [...obs].reverse().find((x) => x.name === 'search_contacts' && x.args.query === (phone ?? query));
  if (!o) return undefined;
  const c = contactsOf(o)[0];
  return c?.phones[0] ? { found: true, name: c.name, phone: phone ?? c.phones[0] } : { found: false };
}

function reminderName(input: PlannerInput, who: string) {
  if (/^me$/i.test(who) && input.trigger.kind === 'chat')
    return input.trigger.user.name ?? input.trigger.user.email;
  return who;
}

function reminderTo(input: PlannerInput, who: string) {
  if (/^me$/i.test(who) && input.trigger.kind === 'chat') return input.trigger.user.email;
  return who;
}

function defaultText(
  toName: string,
  said: SaidCondition | undefined,
  c: FollowUpCondition | undefined,
): string {
  const hi = `Hi ${firstName(toName)}`;
  if (said?.kind === 'no_reply' && c?.kind === 'no_reply')
    return `${hi}, a quick update: we are still waiting to hear back from ${c.name}. We are following up and will let you know as soon as we do.`;
  return `${hi}, just following up — please let us know if you need anything.`;
}
