import { extractEmails } from '../../domain/extract';
import { triageLead } from '../lead-triage';
import type { Plan, PlannerInput, Trigger } from '../types';
import { call, find, firstContact, firstName, outcome, respond } from './helpers';

const AUTOMATED = /(no-?reply|notifications?|mailer-daemon|newsletter|donotreply)@/i;

/** An inbound email: leads go to lead triage; automated mail is left alone; people get an acknowledgement. */
export function triageEmail(input: PlannerInput, t: Extract<Trigger, { kind: 'inbound_email' }>): Plan {
  const e = t.email;
  // Listing sites often send leads from no-reply addresses with the lead's own address inside.
  if (e.source === 'leads') return triageLead(input, t);
  if (AUTOMATED.test(e.from)) return { kind: 'no_action', reason: `automated email from ${e.from}` };
  const obs = input.observations;
  const address = extractEmails(e.from)[0] ?? e.from;
  const lookup = find(obs, 'search_contacts');
  if (!lookup) return call('search_contacts', { query: address, limit: 1 }, 'Identify the sender');
  const name = firstContact(lookup)?.name ?? e.from.replace(/<.*>/, '').trim().replace(/^"|"$/g, '');
  if (!input.hasTool('send_email'))
    return respond(
      `Email from ${name}: “${e.subject}”. Email replies are not configured, so I drafted none.`,
    );
  const send = find(obs, 'send_email');
  if (send)
    return respond(
      `Email from ${name}: “${e.subject}”. ${outcome(send, 'The reply was sent in its thread.', 'send the reply')}`,
    );
  const body = `Hi ${firstName(name)},\n\nThank you for your email — we have received it and will get back to you shortly.\n\nBest regards,\nThe team`;
  return call(
    'send_email',
    {
      to: address,
      subject: e.subject.toLowerCase().startsWith('re:') ? e.subject : `Re: ${e.subject}`,
      body,
      threadId: e.threadId,
      ...(e.messageIdHeader ? { inReplyTo: e.messageIdHeader } : {}),
    },
    `Acknowledge ${name}'s email`,
  );
}
