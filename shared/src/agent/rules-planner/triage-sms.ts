import type { Plan, PlannerInput, Trigger } from '../types';
import { call, find, firstContact, firstName, outcome, respond } from './helpers';

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

/** An inbound text: identify the sender, page on-call if urgent, draft an acknowledgement, report. */
export function triageSms(input: PlannerInput, t: Extract<Trigger, { kind: 'inbound_sms' }>): Plan {
  const obs = input.observations;
  if (!t.urgent && t.texts.every(isClosing))
    return { kind: 'no_action', reason: `closing text from ${t.from}` };
  const lookup = find(obs, 'search_contacts');
  if (!lookup) return call('search_contacts', { query: t.from, limit: 1 }, 'Identify the sender');
  const contact = firstContact(lookup);
  const who = contact?.name ?? t.from;
  const text = t.texts.join(' / ');
  if (t.urgent && input.hasTool('escalate') && !find(obs, 'escalate')) {
    return call(
      'escalate',
      { reason: `Urgent text from ${who}`, from: t.from, text: text.slice(0, 500) },
      'The message looks urgent: page the on-call person',
    );
  }
  const send = find(obs, 'send_message');
  const esc = find(obs, 'escalate');
  const escNote = esc ? ` ${outcome(esc, 'The on-call person was paged.', 'page the on-call person')}` : '';
  if (send)
    return respond(
      `${who} texted: “${text.slice(0, 300)}”. ${outcome(send, 'The acknowledgement was sent.', 'send the acknowledgement')}${escNote}`,
    );
  if (!contact) {
    return respond(
      `Text from an unknown number ${t.from}: “${text.slice(0, 300)}”. It is not in the contacts, so I drafted no reply — add the contact or answer from the shared line.${escNote}`,
    );
  }
  const ack = t.urgent
    ? `Hi ${firstName(who)}, we got your message and are treating it as urgent — our on-call person has been alerted and will contact you shortly.`
    : `Hi ${firstName(who)}, thanks for your message — we've received it and someone from the team will get back to you soon.`;
  return call('send_message', { to: t.from, text: ack }, `Acknowledge ${who}'s text`);
}
