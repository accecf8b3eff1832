import type { Conversation } from '../contracts/conversations';
import type { ConversationStore } from '../ports/conversation-store';

export interface PersonThreadDeps {
  conversations: ConversationStore;
  clock: () => Date;
  /** How recent a person's conversation must be to take their new message (THREAD_WINDOW_DAYS). */
  threadWindowDays?: number;
}

export interface Person {
  /** The address book's contact id, when the sender is known. */
  contactId?: string;
  phones: string[];
  email?: string;
  /** The event's own key (`sms:<phone>`, `email:<thread>`): the trigger mapping older records use. */
  channelKey: string;
}

export interface PersonThread {
  conversation?: Conversation;
  personKey: string;
  /** False when found by an older channel key (or not at all): the person mapping is written after the run. */
  byPerson: boolean;
}

export function personKeyOf(p: Person): string {
  if (p.contactId) return `person:${p.contactId}`;
  if (p.phones[0]) return `person:phone:${p.phones[0]}`;
  return `person:email:${(p.email ?? p.channelKey).toLowerCase()}`;
}

/**
 * The person's conversation (docs/ARCHITECTURE.md "One thread per person"): the person mapping first (one
 * read, plus the conversation); without it, the channel keys older records use — this event's, and a known
 * contact's `sms:<phone>` — and the most recent of those within the window. Nothing is rewritten here.
 */
export async function findPersonThread(deps: PersonThreadDeps, p: Person): Promise<PersonThread> {
  const personKey = personKeyOf(p);
  const fresh = (c: Conversation | undefined) =>
    c && Date.parse(c.lastMessageAt) >= deps.clock().getTime() - (deps.threadWindowDays ?? 14) * 86_400_000;
  const byPerson = await deps.conversations.findByTriggerKey(personKey);
  if (fresh(byPerson)) return { conversation: byPerson, personKey, byPerson: true };
  const keys = [...new Set([p.channelKey, ...p.phones.map((x) => `sms:${x}`)])];
  let best: Conversation | undefined;
  for (const k of keys) {
    const c = await deps.conversations.findByTriggerKey(k);
    if (fresh(c) && (!best || (c as Conversation).lastMessageAt > best.lastMessageAt)) best = c;
  }
  return { ...(best ? { conversation: best } : {}), personKey, byPerson: false };
}

/**
 * After the run: the person's key (and this event's channel key) point at the conversation the message went
 * to, and its `channels` list the new channel. Writes only what changed — nothing in the steady state.
 */
export async function adoptPersonThread(
  deps: PersonThreadDeps,
  input: { conversationId: string; thread: PersonThread; channelKey: string; channel: 'sms' | 'email' },
): Promise<void> {
  const known = input.thread.conversation;
  const settled =
    known?.id === input.conversationId && input.thread.byPerson && known.channels?.includes(input.channel);
  if (settled) return; // the steady state: no read, no write
  const conv = await deps.conversations.get(input.conversationId);
  if (!conv) return; // the run showed nothing (no conversation was created)
  if (!input.thread.byPerson || input.thread.conversation?.id !== conv.id) {
    await deps.conversations.mapTriggerKey(input.thread.personKey, conv.id);
    if (conv.triggerKey !== input.channelKey)
      await deps.conversations.mapTriggerKey(input.channelKey, conv.id);
  }
  const channels = conv.channels ?? [conv.source];
  if (!channels.includes(input.channel))
    await deps.conversations.setThreadFields(conv.id, { channels: [...channels, input.channel] });
  else if (!conv.channels) await deps.conversations.setThreadFields(conv.id, { channels });
}

/** The keys to try, most specific first: the person's, this event's channel key, a known contact's phones. */
export function candidateKeys(p: Person): string[] {
  return [...new Set([personKeyOf(p), p.channelKey, ...p.phones.map((x) => `sms:${x}`)])];
}

export function isFresh(c: Conversation, now: Date, windowDays = 14): boolean {
  return Date.parse(c.lastMessageAt) >= now.getTime() - windowDays * 86_400_000;
}
