import { z } from 'zod';
import type { OpenPhoneToolDeps } from './openphone';
import { lazyInput, type Tool } from './tool';

const SMS_MAX = 1600;

const input = lazyInput(() =>
  z.object({
    phone: z.string().min(3).max(40).describe('The newcomer’s number (E.164), as it texted the company line'),
    name: z.string().trim().min(1).max(100).optional().describe('Their name, only if they gave it'),
    role: z.literal('prospect').default('prospect'),
    text: z.string().trim().min(1).max(SMS_MAX).describe('The reply to send once the contact exists'),
  }),
);

/** "Ana Ruiz" → Ana / Ruiz; no name → the number stands as the contact's name until someone edits it. */
function nameParts(i: z.infer<typeof input>): { firstName: string; lastName: string | null } {
  if (!i.name) return { firstName: i.phone, lastName: null };
  const [first, ...rest] = i.name.split(/\s+/);
  return { firstName: first ?? i.name, lastName: rest.length ? rest.join(' ') : null };
}

/**
 * An unknown number asking about a unit (issue 17): add it to the address book as a prospect, then answer
 * from the shared line — one card, both steps shown, approved together, run in this order. Exactly once:
 * the contact is created only if no contact has this very number (a rerun finds the one it made), and a
 * crash after the send is reconciled by asking OpenPhone for the sent text, never by resending.
 */
export const welcomeContact: Tool<typeof input, OpenPhoneToolDeps> = {
  name: 'welcome_contact',
  group: 'openphone',
  kind: 'write',
  description:
    'Add an unknown number that wrote about a unit as a contact (role prospect) and send it the reply, in that order, from the shared line.',
  input,
  async run(deps, i) {
    deps.directory.invalidate();
    let contact = await deps.directory.byPhone(i.phone);
    const created = !contact;
    if (!contact) {
      await deps.sms.createContact({
        ...nameParts(i),
        company: null,
        role: i.role,
        phones: [{ label: 'mobile', number: i.phone }],
        emails: [],
      });
      deps.directory.invalidate();
      contact = await deps.directory.byPhone(i.phone);
    }
    const sent = await deps.sms.sendMessage({ from: deps.lines.shared, to: i.phone, text: i.text });
    return { contact: contact?.name ?? i.name ?? i.phone, created, messageId: sent.id, status: sent.status };
  },
  async reconcile(deps, i, ctx) {
    const found = await deps.sms.findSentMessage({
      from: deps.lines.shared,
      to: i.phone,
      text: i.text,
      since: ctx.now,
    });
    return found ? { messageId: found.id, status: found.status, reconciled: true } : undefined;
  },
  summarize: (i) =>
    `Add ${i.name ?? i.phone} as a contact (prospect, ${i.phone}), then text: “${i.text.length > 80 ? `${i.text.slice(0, 80)}…` : i.text}”`,
};
