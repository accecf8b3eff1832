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
  /** The key the conversation was found by (absent: a new conversation). */
  foundBy?: string;
}

export function personKeyOf(p: Person): string {
  if (p.contactId) return `person:${p.contactId}`;
  if (p.phones[0]) return `sms:${p.phones[0]}`;
  return `person:email:${(p.email ?? p.channelKey).toLowerCase()}`;
}

/**
 * The keys to try, cheapest first for the steady state: this event's own channel key (one read when the
 * person keeps to a channel), then the person's key, then a known contact's `sms:<phone>` keys (older
 * records). An unknown texter's person key IS their `sms:` key, so nothing new is read for them.
 */
export function candidateKeys(p: Person): string[] {
  return [...new Set([p.channelKey, personKeyOf(p), ...p.phones.map((x) => `sms:${x}`)])];
}

export function isFresh(c: Conversation, now: Date, windowDays = 14): boolean {
  return Date.parse(c.lastMessageAt) >= now.getTime() - windowDays * 86_400_000;
}

/**
 * The person's conversation (docs/ARCHITECTURE.md "One thread per person"): the first candidate key that maps
 * to a conversation active within the window. Nothing is rewritten here.
 */
export async function findPersonThread(deps: PersonThreadDeps, p: Person): Promise<PersonThread> {
  const personKey = personKeyOf(p);
  for (const k of candidateKeys(p)) {
    const c = await deps.conversations.findByTriggerKey(k);
    if (c && isFresh(c, deps.clock(), deps.threadWindowDays))
      return { conversation: c, personKey, foundBy: k };
  }
  return { personKey };
}

/**
 * After the run, what keeps the next message cheap: a conversation found through another channel gets this
 * channel's key and the person's key; a new email conversation gets the person's key (a later text from a
 * known contact finds it there); `channels` gains the new channel. Nothing is written in the steady state
 * (found by its own channel key, channel already listed), and a new conversation gets its `channels` at
 * creation — so the triage turn of a first text stays within the request budget.
 */
export async function adoptPersonThread(
  deps: PersonThreadDeps,
  input: { conversationId: string; thread: PersonThread; channelKey: string; channel: 'sms' | 'email' },
): Promise<void> {
  const { thread, channelKey, channel } = input;
  const known = thread.conversation?.id === input.conversationId ? thread.conversation : undefined;
  if (!known) {
    if (channel === 'email' && thread.personKey !== channelKey)
      await deps.conversations.mapTriggerKey(thread.personKey, input.conversationId);
    return;
  }
  if (thread.foundBy !== channelKey) {
    await deps.conversations.mapTriggerKey(channelKey, known.id);
    if (thread.foundBy !== thread.personKey)
      await deps.conversations.mapTriggerKey(thread.personKey, known.id);
  }
  const channels = known.channels ?? [known.source === 'email' ? 'email' : 'sms'];
  if (!channels.includes(channel))
    await deps.conversations.setThreadFields(known.id, { channels: [...channels, channel] });
}
