import { extractPhones } from '../../../domain/extract';
import { splitRecipient } from '../../slot-filling';
import type { Plan, PlannerInput } from '../../types';
import { call, find, firstContact, firstName, outcome, respond } from '../helpers';
import type { ChatIntent, Slots } from '../intent';

/** "Text Maria that …": find the contact, draft the text in the team's voice, report how it went. */
export const sendText: ChatIntent = {
  name: 'send_text',
  required: ['recipient', 'text'],
  detect(text) {
    // A bare request starts slot filling: "send a text".
    if (/^(?:please\s+)?(?:send|write)\s+(?:an?\s+)?(?:text|sms)(?:\s+message)?\.?$/i.test(text)) return {};
    const m = text.match(
      /^(?:please\s+)?(?:text|sms|message)\s+(.+?)(?:\s+(?:that|saying|to say)\s+|:\s*)(.+)$/i,
    );
    if (m) return { recipient: m[1], text: m[2] };
    const r = text.match(/^(?:please\s+)?(?:text|sms|message)\s+(.+)$/i);
    if (!r) return undefined;
    // "Text +1 555 000 9999 hello": the number is the recipient, the rest is the text.
    const split = splitRecipient(r[1] as string);
    return { recipient: split.recipient, ...(split.rest ? { text: split.rest } : {}) };
  },
  plan(input: PlannerInput, slots: Slots): Plan {
    const recipient = slots.recipient as string;
    const phone = extractPhones(recipient)[0];
    const lookup = find(input.observations, 'search_contacts');
    if (!lookup)
      return call('search_contacts', { query: phone ?? recipient, limit: 3 }, 'Find the recipient');
    const contact = firstContact(lookup);
    if (!contact?.phones[0])
      return respond(
        `I could not find a contact called “${recipient}”. Add them to the contacts first, or give me their number.`,
      );
    const send = find(input.observations, 'send_message');
    if (send) return respond(outcome(send, `Sent to ${contact.name}.`, `text ${contact.name}`));
    const body = (slots.text as string).replace(/^\s*(he|she|they)\b/i, (w) => w.toLowerCase());
    const textOut = `Hi ${firstName(contact.name)}, ${body.charAt(0).toLowerCase()}${body.slice(1)}${/[.!?]$/.test(body) ? '' : '.'}`;
    return call(
      'send_message',
      { to: phone ?? contact.phones[0], text: textOut },
      `Text ${contact.name} as asked`,
    );
  },
};
