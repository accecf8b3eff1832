import { extractEmails } from '../../domain/extract';
import { triageLead } from '../lead-triage';
import { classLine, greeting } from '../rules-triage';
import type { Plan, PlannerInput, Trigger } from '../types';
import { find, firstContact, lookalikeHint, outcome } from './helpers';

const AUTOMATED = /(no-?reply|notifications?|mailer-daemon|newsletter|donotreply)@/i;

/** An inbound email: leads go to lead triage; automated and bulk mail is left alone; people get a reply. */
export function triageEmail(input: PlannerInput, t: Extract<Trigger, { kind: 'inbound_email' }>): Plan {
  const e = t.email;
  // Listing sites often send leads from no-reply addresses with the lead's own address inside.
  if (e.source === 'leads' || t.triage?.triageClass === 'lead') return triageLead(input, t);
  if (AUTOMATED.test(e.from)) return { kind: 'no_action', reason: `automated email from ${e.from}` };
  // Newsletters and promotions end here: logged as NO_ACTION_NEEDED, no conversation, no card.
  if (t.triage?.triageClass === 'bulk') return { kind: 'no_action', reason: `bulk email from ${e.from}` };
  const obs = input.observations;
  const address = extractEmails(e.from)[0] ?? e.from;
  const lookup = find(obs, 'search_contacts');
  if (!lookup)
    return {
      kind: 'calls',
      calls: [{ name: 'search_contacts', args: { query: address, limit: 1 }, reason: 'Identify the sender' }],
    };
  const name = firstContact(lookup)?.name ?? e.from.replace(/<.*>/, '').trim().replace(/^"|"$/g, '');
  const mightBe = lookalikeHint(lookup);
  if (!input.hasTool('send_email')) {
    return {
      kind: 'respond',
      text: `Email from ${name}: “${e.subject}”. Email replies are not configured, so I drafted none.`,
    };
  }
  const send = find(obs, 'send_email');
  if (!send) {
    const body = `${greeting(name.includes('@') ? undefined : name)}\n\nThank you for your email — we have received it and will get back to you shortly.\n\nBest regards,\nThe team`;
    const why = classLine(t.triage);
    return {
      kind: 'calls',
      calls: [
        {
          name: 'send_email',
          args: {
            to: address,
            subject: e.subject.toLowerCase().startsWith('re:') ? e.subject : `Re: ${e.subject}`,
            body,
            threadId: e.threadId,
            ...(e.messageIdHeader ? { inReplyTo: e.messageIdHeader } : {}),
          },
          reason: `Acknowledge ${name}'s email${mightBe}${why ? ` · ${why}` : ''}`,
        },
      ],
    };
  }
  return {
    kind: 'respond',
    text: `Email from ${name}: “${e.subject}”. ${outcome(send, 'The reply was sent in its thread.', 'send the reply')}`,
  };
}
