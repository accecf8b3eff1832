import { z } from 'zod';
import { ForbiddenError, ValidationError } from '../errors';
import type { SmsGateway } from '../ports/sms-gateway';
import { type ContactDirectory, emailIdentity } from './contact-directory';
import { lazyInput, type Tool } from './tool';

export interface OpenPhoneToolDeps {
  sms: SmsGateway;
  directory: ContactDirectory;
  /** E.164 numbers of the two sending lines; the rule, never the model, picks one (SPEC §3.4). */
  lines: { shared: string; assistant: string };
}

const SMS_MAX = 1600;

export const searchContacts: Tool<
  z.ZodLazy<z.ZodObject<{ query: z.ZodString; limit: z.ZodDefault<z.ZodNumber> }>>,
  OpenPhoneToolDeps
> = {
  name: 'search_contacts',
  group: 'openphone',
  kind: 'read',
  description: 'Find people in the team address book by name, phone number, company or role (fuzzy).',
  input: lazyInput(() =>
    z.object({ query: z.string().min(1).max(200), limit: z.number().int().min(1).max(20).default(5) }),
  ),
  async run(deps, input) {
    const hits = await deps.directory.search(input.query, input.limit);
    return {
      count: hits.length,
      contacts: hits,
      ...(await lookalikeNote(deps.directory, input.query, hits.length)),
    };
  },
  summarize: (i) => `Search contacts for "${i.query}"`,
};

/**
 * When a number or address matched no contact, similar contacts are named apart from `contacts`, with a
 * warning: a stranger is never addressed as the tenant their address resembles (issue 12 item 6).
 */
async function lookalikeNote(directory: ContactDirectory, query: string, exact: number) {
  const identity = emailIdentity(query) ?? (/\d{3}/.test(query) ? query : null);
  if (!identity || exact > 0) return {};
  const similar = await directory.lookalikes(query);
  if (similar.length === 0) return {};
  return {
    not_the_sender: similar.map((c) => c.name),
    note: `No contact has exactly ${identity}. ${similar.map((c) => c.name).join(', ')} only look similar: treat the sender as unknown (do not greet or address them by these names, share nothing about these contacts); a person may check "might be ${similar[0]?.name}?".`,
  };
}

const sendMessageInput = lazyInput(() =>
  z.object({
    to: z.string().min(3).max(40).describe('Recipient phone number (E.164) of a known contact'),
    text: z.string().trim().min(1).max(SMS_MAX),
  }),
);

/** Which line sends to a recipient: team members hear from the assistant, everyone else from the shared line. */
export async function chooseLine(deps: OpenPhoneToolDeps, to: string) {
  const contact = await deps.directory.byPhone(to);
  if (!contact)
    throw new ForbiddenError(`${to} is not a known contact; add the contact first or check the number.`);
  return { contact, from: contact.internal ? deps.lines.assistant : deps.lines.shared };
}

export const sendMessage: Tool<typeof sendMessageInput, OpenPhoneToolDeps> = {
  name: 'send_message',
  group: 'openphone',
  kind: 'write',
  description:
    'Send a text message to a known contact. The sending line is chosen automatically (team members: the assistant line; others: the shared company line).',
  input: sendMessageInput,
  async run(deps, input) {
    const { contact, from } = await chooseLine(deps, input.to);
    const sent = await deps.sms.sendMessage({ from, to: input.to, text: input.text });
    return { messageId: sent.id, to: contact.name, from, status: sent.status };
  },
  async reconcile(deps, input, ctx) {
    const { from } = await chooseLine(deps, input.to);
    // ctx.now is the moment this action's execution started (set by the executor), so an identical
    // earlier text to the same person is not mistaken for this one.
    const found = await deps.sms.findSentMessage({ from, to: input.to, text: input.text, since: ctx.now });
    return found ? { messageId: found.id, from, status: found.status, reconciled: true } : undefined;
  },
  summarize: (i) => `Text ${i.to}: “${i.text.length > 80 ? `${i.text.slice(0, 80)}…` : i.text}”`,
};

const lineAndParticipant = lazyInput(() =>
  z.object({
    participant: z.string().min(3).max(40),
    limit: z.number().int().min(1).max(50).default(20),
  }),
);

export const listMessages: Tool<typeof lineAndParticipant, OpenPhoneToolDeps> = {
  name: 'list_messages',
  group: 'openphone',
  kind: 'read',
  description: 'Recent text messages between the shared company line and one phone number.',
  input: lineAndParticipant,
  async run(deps, input) {
    const page = await deps.sms.listMessages({
      line: deps.lines.shared,
      participants: [input.participant],
      maxResults: input.limit,
    });
    return page.items.map((m) => ({
      id: m.id,
      direction: m.direction,
      from: m.from,
      text: m.text,
      at: m.createdAt,
    }));
  },
};

const byId = lazyInput(() => z.object({ id: z.string().min(1).max(100) }));

export const getMessage: Tool<typeof byId, OpenPhoneToolDeps> = {
  name: 'get_message',
  group: 'openphone',
  kind: 'read',
  description: 'One text message by id.',
  input: byId,
  run: (deps, input) => deps.sms.getMessage(input.id),
};

export const listCalls: Tool<typeof lineAndParticipant, OpenPhoneToolDeps> = {
  name: 'list_calls',
  group: 'openphone',
  kind: 'read',
  description: 'Recent calls between the shared company line and one phone number.',
  input: lineAndParticipant,
  async run(deps, input) {
    const page = await deps.sms.listCalls({
      line: deps.lines.shared,
      participant: input.participant,
      maxResults: input.limit,
    });
    return page.items;
  },
};

export const getCall: Tool<typeof byId, OpenPhoneToolDeps> = {
  name: 'get_call',
  group: 'openphone',
  kind: 'read',
  description: 'One call by id.',
  input: byId,
  run: (deps, input) => deps.sms.getCall(input.id),
};

export const getCallSummary: Tool<typeof byId, OpenPhoneToolDeps> = {
  name: 'get_call_summary',
  group: 'openphone',
  kind: 'read',
  description: 'The AI summary and next steps of a call, by call id.',
  input: byId,
  run: (deps, input) => deps.sms.getCallSummary(input.id),
};

export const getCallTranscript: Tool<typeof byId, OpenPhoneToolDeps> = {
  name: 'get_call_transcript',
  group: 'openphone',
  kind: 'read',
  description: 'The transcript of a call, by call id.',
  input: byId,
  async run(deps, input) {
    const t = await deps.sms.getCallTranscript(input.id);
    return { ...t, dialogue: t.dialogue.map((d) => `${d.speaker ?? 'team'}: ${d.text}`) };
  },
};

/** Built by the create and update tools' schemas on their first use. */
const contactFields = () =>
  z.object({
    firstName: z.string().min(1).max(100),
    lastName: z.string().max(100).optional(),
    company: z.string().max(200).optional(),
    role: z.string().max(200).optional(),
    phone: z.string().min(3).max(40).optional(),
    email: z.string().email().optional(),
  });
const contactInput = lazyInput(contactFields);

export const createContact: Tool<typeof contactInput, OpenPhoneToolDeps> = {
  name: 'create_contact',
  group: 'openphone',
  kind: 'write',
  description: 'Add a contact to the team address book.',
  input: contactInput,
  async run(deps, input) {
    const c = await deps.sms.createContact({
      firstName: input.firstName,
      lastName: input.lastName ?? null,
      company: input.company ?? null,
      role: input.role ?? null,
      phones: input.phone ? [{ label: 'mobile', number: input.phone }] : [],
      emails: input.email ? [{ label: 'email', value: input.email }] : [],
    });
    deps.directory.invalidate();
    return { id: c.id, name: c.displayName };
  },
  summarize: (i) => `Add contact ${i.firstName} ${i.lastName ?? ''}`.trim(),
};

const updateInput = lazyInput(() =>
  contactFields()
    .partial()
    .extend({ id: z.string().min(1).max(100) }),
);

export const updateContact: Tool<typeof updateInput, OpenPhoneToolDeps> = {
  name: 'update_contact',
  group: 'openphone',
  kind: 'write',
  description: 'Change a contact in the team address book.',
  input: updateInput,
  async run(deps, input) {
    const { id, phone, email, ...rest } = input;
    if (Object.keys(rest).length === 0 && !phone && !email) throw new ValidationError('Nothing to update');
    const c = await deps.sms.updateContact(id, {
      ...rest,
      ...(phone ? { phones: [{ label: 'mobile', number: phone }] } : {}),
      ...(email ? { emails: [{ label: 'email', value: email }] } : {}),
    });
    deps.directory.invalidate();
    return { id: c.id, name: c.displayName };
  },
  summarize: (i) => `Update contact ${i.id}`,
};

export const deleteContact: Tool<typeof byId, OpenPhoneToolDeps> = {
  name: 'delete_contact',
  group: 'openphone',
  kind: 'write',
  description: 'Remove a contact from the team address book.',
  input: byId,
  async run(deps, input) {
    await deps.sms.deleteContact(input.id);
    deps.directory.invalidate();
    return { deleted: input.id };
  },
  summarize: (i) => `Delete contact ${i.id}`,
};

export const openPhoneTools = [
  searchContacts,
  sendMessage,
  listMessages,
  getMessage,
  listCalls,
  getCall,
  getCallSummary,
  getCallTranscript,
  createContact,
  updateContact,
  deleteContact,
] as const;

export interface ReplyDeps extends OpenPhoneToolDeps {
  conversations: {
    get(id: string): Promise<{ contact?: { phone?: string; internal?: boolean } } | undefined>;
  };
}

const replyInput = lazyInput(() => z.object({ text: z.string().trim().min(1).max(SMS_MAX) }));

/**
 * The assistant's answer to a team member who texted the company line, by text from the assistant's line.
 * The recipient is never an argument: it is the conversation's own internal sender, so the autonomy rule
 * that lets this skip approval cannot be used to text anyone else.
 */
export const replyToSender: Tool<typeof replyInput, ReplyDeps> = {
  name: 'reply_to_sender',
  group: 'openphone',
  kind: 'write',
  description:
    'Answer the team member who texted you, by text. Only for conversations started by a team member over SMS.',
  input: replyInput,
  async run(deps, input, ctx) {
    const conv = await deps.conversations.get(ctx.conversationId);
    const phone = conv?.contact?.phone;
    if (!phone) throw new ForbiddenError('This conversation has no sender to reply to by text.');
    const contact = await deps.directory.byPhone(phone);
    if (!contact?.internal)
      throw new ForbiddenError(
        'Only team members get replies without approval; draft a send_message instead.',
      );
    const sent = await deps.sms.sendMessage({ from: deps.lines.assistant, to: phone, text: input.text });
    return { messageId: sent.id, to: contact.name };
  },
  async reconcile(deps, input, ctx) {
    const conv = await deps.conversations.get(ctx.conversationId);
    const phone = conv?.contact?.phone;
    if (!phone) return undefined;
    const found = await deps.sms.findSentMessage({
      from: deps.lines.assistant,
      to: phone,
      text: input.text,
      since: ctx.now,
    });
    return found ? { messageId: found.id, reconciled: true } : undefined;
  },
  summarize: (i) => `Reply by text: “${i.text.slice(0, 80)}”`,
};
