import type { ConversationSummary, InboxFilter } from '../contracts/api';
import type { Conversation } from '../contracts/conversations';
import { visibleTo } from '../domain/visibility';
import type { ConversationStore } from '../ports/conversation-store';

export interface ListConversationsDeps {
  conversations: ConversationStore;
}

/** Pages read to fill one filtered page (a filter over a big inbox must not read it all). */
const MAX_READS = 4;

/**
 * The team's shared inbox (issue 19), one page at a time, ordered by what needs a person: urgent first, then
 * cards waiting for approval, then the rest by time. Filters: needs approval, urgent, leads, mine (claimed
 * by me or assigned to me), done; the default view leaves done and archived conversations out. The order is
 * within the page (a page is the most recent conversations the filter keeps), so an older urgent matter
 * shows on the page its time puts it on, still at that page's top.
 */
export async function listConversations(
  deps: ListConversationsDeps,
  input: { userId: string; limit?: number; filter?: InboxFilter; cursor?: string },
): Promise<{ conversations: ConversationSummary[]; nextCursor?: string }> {
  const limit = input.limit ?? 50;
  const filter = matcher(input.filter ?? 'all', input.userId);
  // One person's own conversation (their digest, follow #20) is in no one else's inbox.
  const keep = (c: Conversation) => visibleTo(c, input.userId) && filter(c);
  const store = deps.conversations;
  if (!store.listPage) {
    const all = await store.list({ limit });
    return { conversations: ordered(all.filter(keep)).map((c) => toSummary(c, input.userId)) };
  }
  let kept: Conversation[] = [];
  let cursor = input.cursor;
  for (let reads = 0; reads < MAX_READS && kept.length < limit; reads++) {
    const page = await store.listPage({ limit, ...(cursor ? { cursor } : {}) });
    kept.push(...page.items.filter(keep));
    cursor = page.next;
    if (!cursor) break;
  }
  // A read can overshoot the page: stop at `limit` and continue right after the last one shown.
  const last = kept[limit - 1];
  if (kept.length > limit && last && store.cursorAfter) {
    kept = kept.slice(0, limit);
    cursor = store.cursorAfter(last);
  }
  return {
    conversations: ordered(kept).map((c) => toSummary(c, input.userId)),
    ...(cursor ? { nextCursor: cursor } : {}),
  };
}

const isOpen = (c: Conversation) => (c.status ?? 'open') === 'open';

function matcher(filter: InboxFilter, userId: string): (c: Conversation) => boolean {
  switch (filter) {
    case 'needs_approval':
      return (c) => c.pendingCount > 0;
    case 'urgent':
      return (c) => Boolean(c.urgent) && isOpen(c);
    case 'leads':
      return (c) => Boolean(c.lead) && isOpen(c);
    case 'mine':
      return (c) => c.assignee === userId || claimedBy(c) === userId;
    case 'done':
      return (c) => c.status === 'done' || c.status === 'archived';
    default:
      // A card waiting keeps a conversation in view even if someone marked it done.
      return (c) => isOpen(c) || c.pendingCount > 0;
  }
}

/** The cards issue mirrors a claim as `claimedBy` on the conversation; read it when present. */
function claimedBy(c: Conversation): string | undefined {
  const v = (c as Conversation & { claimedBy?: unknown }).claimedBy;
  return typeof v === 'string' ? v : undefined;
}

const rank = (c: Conversation) => (c.urgent && isOpen(c) ? 0 : c.pendingCount > 0 ? 1 : 2);

/** Urgent, then waiting for approval, then newest first; stable within each group. */
export function ordered(list: Conversation[]): Conversation[] {
  return [...list].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      (a.lastMessageAt < b.lastMessageAt ? 1 : a.lastMessageAt > b.lastMessageAt ? -1 : 0),
  );
}

/**
 * Conversations are shared, read marks are not: a conversation is unread for this person when something
 * arrived after they last opened it (or they never did).
 */
export function toSummary(c: Conversation, userId: string): ConversationSummary {
  const readAt = c.readBy?.[userId];
  const claimer = claimedBy(c);
  return {
    id: c.id,
    title: c.title,
    source: c.source,
    preview: c.preview,
    createdAt: c.createdAt,
    lastMessageAt: c.lastMessageAt,
    createdBy: c.createdBy,
    pendingCount: Math.max(0, c.pendingCount ?? 0),
    unread: !readAt || readAt < c.lastMessageAt,
    ...(c.contact ? { contact: c.contact } : {}),
    ...(c.triggerKey ? { triggerKey: c.triggerKey } : {}),
    ...(c.urgent ? { urgent: c.urgent } : {}),
    ...(c.status ? { status: c.status } : {}),
    ...(c.assignee ? { assignee: c.assignee } : {}),
    ...(claimer ? { claimedBy: claimer } : {}),
    ...(c.lead ? { lead: c.lead } : {}),
    ...(c.channels ? { channels: c.channels } : {}),
  };
}
