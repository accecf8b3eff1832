import { openQuestions, unansweredNote } from '../../domain/open-questions';
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
import { leadAbout, leadSmsReads, leadSmsReply } from './lead-sms';
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
    const read = find(obs, 'read_file');
    // A prospect writing as a lead is qualified by the policy, like a newcomer (issue 17).
    const prospectLead = !t.urgent && contact.role === 'prospect' && t.triage?.triageClass === 'lead';
    const reads = knownSenderReads(input, t, prospectLead);
    if (reads.length) return { kind: 'calls', calls: reads };
    const skill = loadedSkill(input);
    const skip = t.urgent ? undefined : skillSaysNoReply(skill, t.triage?.triageClass);
    if (skip) return { kind: 'no_action', reason: skip };
    const facts = factsFor(t.triage, read?.status === 'ok' ? memoryText(read.result) : '');
    const lead = prospectLead ? leadSmsReply(input, t, contact.name) : undefined;
    const ack = followSkill(
      lead?.text ?? smsReply(t.triage, contact.name, t.urgent, facts, slotsOf(obs)),
      skill,
      t.triage?.triageClass,
    );
    // The card says who wrote, as the team knows them ("tenant, 12 Oak St #2"), after the class and its cues.
    const why = `${classLine(t.triage, contact.role ?? undefined)}${lead ? ` · policy: ${lead.summary}` : factsLine(t.triage, facts, read !== undefined)}`;
    return {
      kind: 'calls',
      calls: [
        {
          name: 'send_message',
          args: { to: t.from, text: ack.text },
          reason: `Acknowledge ${who}'s text${why ? ` · ${why}` : ''}${ack.note}`,
          ...(lead?.policy ? { policy: lead.policy } : {}),
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
 * What the team knows answers a known sender (rent due day, the water shutoff): the notes, for a viewing the
 * calendar's free times, for a prospect's lead the policy's verdict — all in one round, each once.
 */
function knownSenderReads(input: PlannerInput, t: Extract<Trigger, { kind: 'inbound_sms' }>, lead: boolean) {
  return [
    ...(t.triage && input.hasTool('read_file') && !find(input.observations, 'read_file')
      ? [{ name: 'read_file', args: { path: 'MEMORY.md' }, reason: 'Look up what the team knows' }]
      : []),
    ...slotRead(input, t),
    ...(lead ? leadSmsReads(input) : []),
    ...skillRead(input, 'inbound_sms'),
  ];
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
    // The calendar's free times and the policy's verdict on what they told us, in one round.
    const reads = welcome ? [] : [...slotRead(input, t), ...leadSmsReads(input)];
    if (reads.length) return { kind: 'calls', calls: reads };
    if (!welcome) {
      const name = t.texts.map(nameFromText).find(Boolean);
      const lead = leadSmsReply(input, t, name);
      return {
        kind: 'calls',
        calls: [
          {
            name: 'welcome_contact',
            args: {
              phone: t.from,
              ...(name ? { name } : {}),
              role: 'prospect',
              text:
                lead?.text ??
                `${welcomeReply(name, t.triage, slotsOf(input.observations), leadAbout(t.texts.join('\n'), t.triage?.triageClass))}${unansweredNote(openQuestions(t.texts))}`,
            },
            reason: `New ${why} from an unknown number: add them as a prospect and reply${lead ? ` · policy: ${lead.summary}` : ''}`,
            ...(lead?.policy ? { policy: lead.policy } : {}),
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
