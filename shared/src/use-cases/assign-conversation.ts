import type { Conversation } from '../contracts/conversations';
import type { ConversationStore } from '../ports/conversation-store';
import type { FactStore } from '../ports/fact-store';
import { assignmentsFrom, lastTeamPreferenceFacts, teamPreferenceFacts } from './preferences';

export interface AssignDeps {
  conversations: ConversationStore;
  facts?: FactStore;
  clock: () => Date;
}

/**
 * Property assignment → `conversation.assignee` (follow #20; the inbox's "Mine" and notification routing read
 * it): when a conversation's message names a property someone handles (a text, an email's subject or body),
 * or its lead's property is known, and the conversation has no assignee yet, it becomes theirs — a new
 * conversation at its first message, an existing one when the property becomes known later. A conversation
 * that has an assignee keeps it. Budget (DESIGN §2): the assignments are the team partition's one Query,
 * cached 60 s per container (preferences.ts). A new conversation reads them; an existing one spends the read
 * only when its message may name a property — an address-like word ("12 Oak St", "#4B"), or a property name
 * (in the message or its lead's property) from the last assignments this container read (however old: only a hint, the fresh read
 * decides) — so its plain turns stay within the six requests.
 */
export async function assignByProperty(
  deps: AssignDeps,
  input: { conversation?: Conversation; conversationId: string; text: string },
): Promise<string | undefined> {
  const existing = input.conversation;
  const facts = deps.facts;
  if (!facts || existing?.assignee) return undefined;
  const leadProperty = existing?.lead?.property ?? '';
  const said = normalise(`${input.text} ${leadProperty}`);
  // The lead's property counts as said, but like any name it must be known to spend the read: most lead
  // conversations name a property nobody handles, and their turns are budgeted too.
  if (existing && !ADDRESS_LIKE.test(input.text) && !namesKnownProperty(facts, said)) return undefined;
  const all = assignmentsFrom(await teamPreferenceFacts(facts, deps.clock()));
  const found = all.find((a) => said.includes(normalise(a.property)));
  if (!found) return undefined;
  if (!existing && !(await deps.conversations.get(input.conversationId))) return undefined;
  await deps.conversations.setThreadFields(input.conversationId, { assignee: found.userId });
  return found.userId;
}

/** "Maple Court" said in a message, against the property names this container last read (no request). */
function namesKnownProperty(facts: FactStore, said: string): boolean {
  const last = lastTeamPreferenceFacts(facts);
  return Boolean(last && assignmentsFrom(last).some((a) => said.includes(normalise(a.property))));
}

/** A house number before a word ("12 Oak", "48b Elm") or a unit ("#4B", "unit 3"): a property may be named. */
const ADDRESS_LIKE = /\b\d+[a-z]?\s+[a-z]|#\s?\d|\bunit\s+\w/i;

/** "12 Oak St." and "12  oak st" are the same property: lower case, punctuation and runs of space folded. */
const normalise = (s: string) =>
  ` ${s
    .toLowerCase()
    .replace(/[^a-z0-9#]+/g, ' ')
    .trim()} `;

/** How far back a newly handled property reaches: the inbox's first pages, not the whole history. */
const RECENT_CONVERSATIONS = 200;

/**
 * A person starts handling a property (Settings → Preferences): the recent unassigned conversations already
 * about it — its lead's property, or a title or preview that names it — become theirs too, not only the ones
 * that start after. Runs on the API's save (no agent turn); a conversation with an assignee keeps it.
 */
export async function assignExistingByProperty(
  deps: Pick<AssignDeps, 'conversations'>,
  input: { userId: string; properties: string[] },
): Promise<number> {
  const wanted = input.properties.map(normalise).filter((p) => p.trim());
  if (!wanted.length) return 0;
  let assigned = 0;
  for (const c of await deps.conversations.list({ limit: RECENT_CONVERSATIONS })) {
    if (c.assignee || c.source === 'chat' || c.id.startsWith('c_digest_')) continue;
    const about = normalise(`${c.lead?.property ?? ''} ${c.title} ${c.preview}`);
    if (!wanted.some((p) => about.includes(p))) continue;
    await deps.conversations.setThreadFields(c.id, { assignee: input.userId });
    assigned++;
  }
  return assigned;
}
