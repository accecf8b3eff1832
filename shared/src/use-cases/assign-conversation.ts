import type { Conversation } from '../contracts/conversations';
import type { PropertyAssignment } from '../contracts/preferences';
import type { ConversationStore } from '../ports/conversation-store';
import type { FactStore } from '../ports/fact-store';
import { assignmentsFrom, PREFERENCES_PARTITION } from './preferences';

export interface AssignDeps {
  conversations: ConversationStore;
  facts?: FactStore;
  clock: () => Date;
}

/** Per container, at most 60 s old (DESIGN §2: a turn adds no request that is not its own partition or cached). */
const CACHE_MS = 60_000;
const cache = new WeakMap<FactStore, { at: number; value: PropertyAssignment[] }>();

async function assignments(facts: FactStore, now: Date): Promise<PropertyAssignment[]> {
  const hit = cache.get(facts);
  if (hit && now.getTime() - hit.at < CACHE_MS) return hit.value;
  const value = assignmentsFrom(await facts.list(PREFERENCES_PARTITION, { now, predicate: 'assigned' }));
  cache.set(facts, { at: now.getTime(), value });
  return value;
}

/**
 * Property assignment → `conversation.assignee` (follow #20; the inbox's "Mine" and notification routing read
 * it): when a conversation is created (DESIGN §1) and its first message names a property someone handles (a
 * text, an email's subject or body), it becomes theirs. Only new conversations: an existing one keeps
 * whatever assignee it has, and its turns stay within the six-request budget (the assignments read is one
 * Query, cached 60 s per container, spent once per new conversation).
 */
export async function assignByProperty(
  deps: AssignDeps,
  input: { conversation?: Conversation; conversationId: string; text: string },
): Promise<string | undefined> {
  if (!deps.facts || input.conversation) return undefined;
  const all = await assignments(deps.facts, deps.clock());
  if (!all.length) return undefined;
  const said = normalise(input.text);
  const found = all.find((a) => said.includes(normalise(a.property)));
  if (!found || !(await deps.conversations.get(input.conversationId))) return undefined;
  await deps.conversations.setThreadFields(input.conversationId, { assignee: found.userId });
  return found.userId;
}

/** "12 Oak St." and "12  oak st" are the same property: lower case, punctuation and runs of space folded. */
const normalise = (s: string) =>
  ` ${s
    .toLowerCase()
    .replace(/[^a-z0-9#]+/g, ' ')
    .trim()} `;
