import { extractEmails } from '../../../domain/extract';
import type { Plan, PlannerInput } from '../../types';
import { call, find, firstContact, outcome, respond } from '../helpers';
import type { ChatIntent, Slots } from '../intent';

/** "Email Sam about … : …": an address given or looked up, then the email as asked. */
export const sendEmail: ChatIntent = {
  name: 'send_email',
  required: ['recipient', 'subject', 'body'],
  detect(text) {
    // A bare request starts slot filling: "send an email".
    if (/^(?:please\s+)?(?:send|write|draft|compose)\s+(?:an?\s+|new\s+)*e-?mail\.?$/i.test(text)) return {};
    const m = text.match(
      /^(?:please\s+)?e-?mail\s+(.+?)(?:\s+(?:about|re:?|regarding)\s+(.+?))?(?::\s*|\s+saying\s+|\s+that\s+)(.+)$/i,
    );
    if (m) return { recipient: m[1], ...(m[2] ? { subject: m[2] } : {}), body: m[3] };
    const r = text.match(/^(?:please\s+)?e-?mail\s+(.+)$/i);
    return r ? { recipient: r[1] } : undefined;
  },
  plan(input: PlannerInput, slots: Slots): Plan {
    if (!input.hasTool('send_email')) return respond('Email is not configured here.');
    const recipient = slots.recipient as string;
    let address = extractEmails(recipient)[0];
    if (!address) {
      const lookup = find(input.observations, 'search_contacts');
      if (!lookup) return call('search_contacts', { query: recipient, limit: 3 }, 'Find the recipient');
      address = firstContact(lookup)?.emails[0];
      if (!address) return respond(`I could not find an email address for “${recipient}”.`);
    }
    const send = find(input.observations, 'send_email');
    if (send) return respond(outcome(send, `Email sent to ${address}.`, `email ${address}`));
    return call(
      'send_email',
      { to: address, subject: slots.subject, body: slots.body },
      'Send the email as asked',
    );
  },
};
