import {
  classLine,
  factsFor,
  factsLine,
  NEWCOMER_CLASSES,
  nameFromText,
  SLOT_CLASSES,
  smsReply,
  welcomeReply,
} from '../rules-triage';
import type { Plan, PlannerInput, Trigger } from '../types';
import { find, firstContact, memoryText, outcome, slotsOf } from './helpers';
import { followSkill, loadedSkill, skillRead, skillSaysNoReply } from './skill';

/** A text that only closes a thread ("thanks!", "ok, see you then") needs no reply and no card. */
const CLOSING_WORDS =
  '(?:ok(?:ay)?|k|thanks?|thank you|thx|ty|got it|sounds good|great|perfect|cool|will do|see you(?: then| soon| tomorrow)?|you too|no problem|np|so much|very much|a lot|again)';
const CLOSING = new RegExp(`^${CLOSING_WORDS}(?: ${CLOSING_WORDS})*$`);
const isClosing = (text: string) =>
  CLOSING.test(
    text
      .toLowerCase()
      .replace(/[^a-z\s]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  );

/** An inbound text: identify the sender, page on-call if urgent, draft a reply in the team's voice, report. */
export function triageSms(input: PlannerInput, t: Extract<Trigger, { kind: 'inbound_sms' }>): Plan {
  const obs = input.observations;
  // The seed's follow-up rule, from the lead's state: a booked or disqualified lead gets no drafted reply
  // (an urgent text still pages: it is not a lead matter).
  if (!t.urgent && t.lead && (t.lead.state === 'showing_booked' || t.lead.state === 'disqualified'))
    return { kind: 'no_action', reason: `lead is ${t.lead.state.replace('_', ' ')}: no reply (seed rule)` };
  // A photo is never a "thanks": a tenant who sends a picture of a leak expects an answer.
  if (!t.urgent && !t.media?.length && (t.texts.every(isClosing) || t.triage?.triageClass === 'thanks'))
    return { kind: 'no_action', reason: `closing text from ${t.from}` };
  const lookup = find(obs, 'search_contacts');
  if (!lookup)
    return {
      kind: 'calls',
      calls: [{ name: 'search_contacts', args: { query: t.from, limit: 1 }, reason: 'Identify the sender' }],
    };
  const contact = firstContact(lookup);
  const who = contact?.name ?? t.from;
  const text = t.texts.join(' / ');
  if (t.urgent && input.hasTool('escalate') && !find(obs, 'escalate')) {
    return {
      kind: 'calls',
      calls: [
        {
          name: 'escalate',
          args: {
            reason: `Urgent text from ${who}${t.triage?.kind ? ` (${t.triage.kind} emergency)` : ''}`,
            from: t.from,
            text: text.slice(0, 500),
          },
          reason: `The message looks urgent: page the on-call person${t.triage ? ` · ${classLine(t.triage, contact?.role ?? undefined)}` : ''}`,
        },
      ],
    };
  }
  const send = find(obs, 'send_message');
  const esc = find(obs, 'escalate');
  const escNote = esc ? ` ${outcome(esc, 'The on-call person was paged.', 'page the on-call person')}` : '';
  if (!send) {
    if (!contact) return unknownSender(input, t, text, escNote);
    // What the team knows answers the tenant (rent due day, the water shutoff): read the notes first, and
    // for a viewing the calendar's free times, in the same round.
    const read = find(obs, 'read_file');
    const reads = [
      ...(t.triage && input.hasTool('read_file') && !read
        ? [{ name: 'read_file', args: { path: 'MEMORY.md' }, reason: 'Look up what the team knows' }]
        : []),
      ...slotRead(input, t),
      ...skillRead(input, 'inbound_sms'),
    ];
    if (reads.length) return { kind: 'calls', calls: reads };
    const skill = loadedSkill(input);
    const skip = t.urgent ? undefined : skillSaysNoReply(skill, t.triage?.triageClass);
    if (skip) return { kind: 'no_action', reason: skip };
    const facts = factsFor(t.triage, read?.status === 'ok' ? memoryText(read.result) : '');
    const ack = followSkill(
      smsReply(t.triage, contact.name, t.urgent, facts, slotsOf(obs)),
      skill,
      t.triage?.triageClass,
    );
    // The card says who wrote, as the team knows them ("tenant, 12 Oak St #2"), after the class and its cues.
    const why = `${classLine(t.triage, contact.role ?? undefined)}${factsLine(t.triage, facts, read !== undefined)}`;
    return {
      kind: 'calls',
      calls: [
        {
          name: 'send_message',
          args: { to: t.from, text: ack.text },
          reason: `Acknowledge ${who}'s text${why ? ` · ${why}` : ''}${ack.note}`,
        },
      ],
    };
  }
  return {
    kind: 'respond',
    text: `${who} texted: “${text.slice(0, 300)}”. ${outcome(send, 'The acknowledgement was sent.', 'send the acknowledgement')}${escNote}`,
  };
}

/**
 * An unknown number: a lead or a viewing request gets ONE card that adds the sender as a prospect and sends
 * the reply (welcome_contact); anything else alerts the team with what triage made of it — never silence.
 */
function unknownSender(
  input: PlannerInput,
  t: Extract<Trigger, { kind: 'inbound_sms' }>,
  text: string,
  escNote: string,
): Plan {
  const welcome = find(input.observations, 'welcome_contact');
  const why = classLine(t.triage);
  if (t.triage && NEWCOMER_CLASSES.has(t.triage.triageClass) && input.hasTool('welcome_contact')) {
    const reads = welcome ? [] : slotRead(input, t);
    if (reads.length) return { kind: 'calls', calls: reads };
    if (!welcome) {
      const name = t.texts.map(nameFromText).find(Boolean);
      return {
        kind: 'calls',
        calls: [
          {
            name: 'welcome_contact',
            args: {
              phone: t.from,
              ...(name ? { name } : {}),
              role: 'prospect',
              text: welcomeReply(name, t.triage, slotsOf(input.observations)),
            },
            reason: `New ${why} from an unknown number: add them as a prospect and reply`,
          },
        ],
      };
    }
    return {
      kind: 'respond',
      text: `New ${why} from ${t.from}: “${text.slice(0, 300)}”. ${outcome(welcome, 'They were added as a prospect and the reply was sent.', 'add them and reply')}${escNote}`,
    };
  }
  return {
    kind: 'respond',
    text: `Text from an unknown number ${t.from}${why ? ` (${why})` : ''}: “${text.slice(0, 300)}”. It is not in the contacts, so I drafted no reply — add the contact or answer from the shared line.${escNote}`,
  };
}

/**
 * A viewing or a lead, not urgent: ask the calendar for free showing times once (a read, shown in the run's
 * activity). Without the tool (no Google) or after it failed, the reply says a person will confirm a time.
 */
function slotRead(input: PlannerInput, t: Extract<Trigger, { kind: 'inbound_sms' }>) {
  const wanted = !t.urgent && t.triage && SLOT_CLASSES.has(t.triage.triageClass);
  if (!wanted || !input.hasTool('find_free_slots') || find(input.observations, 'find_free_slots')) return [];
  return [{ name: 'find_free_slots', args: {}, reason: 'Find free showing times on the calendar' }];
}
