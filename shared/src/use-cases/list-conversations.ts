import type { ConversationSummary, InboxFilter } from '../contracts/api';
import type { Conversation } from '../contracts/conversations';
import { visibleTo } from '../domain/visibility';
import type { ConversationStore } from '../ports/conversation-store';

export interface ListConversationsDeps {
  conversations: ConversationStore;
}

/** Pages read to fill one filtered page (a filter over a big inbox must not read it all). */
const MAX_READS = 4;
/** Index pages (up to 1 MB each) searched for open urgent conversations older than the first page. */
const URGENT_PAGES = 3;

/**
 * The team's shared inbox (issue 19), one page at a time, ordered by what needs a person: urgent first, then
 * cards waiting for approval, then the rest by time. Filters: needs approval, urgent, leads, mine (claimed
 * by me or assigned to me), done; the default view leaves done and archived conversations out. In the
 * default view urgent comes first across pages: every open urgent conversation (as far back as the urgent
 * lane's search reads) is on the first page, however old, and later pages leave those out; within a page,
 * cards waiting come next, then time.
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
  const lane = await urgentLane(store, input.filter ?? 'all');
  const regular = (c: Conversation) => keep(c) && !lane.has(c);
  let kept: Conversation[] = [];
  let cursor = input.cursor;
  for (let reads = 0; reads < MAX_READS && kept.length < limit; reads++) {
    const page = await store.listPage({ limit, ...(cursor ? { cursor } : {}) });
    kept.push(...page.items.filter(regular));
    cursor = page.next;
    if (!cursor) break;
  }
  // A read can overshoot the page: stop at `limit` and continue right after the last one shown.
  const last = kept[limit - 1];
  if (kept.length > limit && last && store.cursorAfter) {
    kept = kept.slice(0, limit);
    cursor = store.cursorAfter(last);
  }
  const first = input.cursor ? [] : lane.items.filter(keep);
  return {
    conversations: [...ordered(first), ...ordered(kept)].map((c) => toSummary(c, input.userId)),
    ...(cursor ? { nextCursor: cursor } : {}),
  };
}

/**
 * The default view's urgent lane: the open urgent conversations the store finds (newest first, bounded). They
 * go on the first page; `has` tells later pages (and the first page's regular part) to leave them out. When
 * the search stopped early, only those above where it stopped are in the lane; older ones page as usual.
 */
async function urgentLane(store: ConversationStore, filter: InboxFilter) {
  const none = { items: [] as Conversation[], has: (_c: Conversation) => false };
  if (filter !== 'all' || !store.listOpenUrgent) return none;
  const { items, scannedTo } = await store.listOpenUrgent({ maxPages: URGENT_PAGES });
  const ids = new Set(items.map((c) => c.id));
  return {
    items,
    has: (c: Conversation) => ids.has(c.id) && (!scannedTo || `${c.lastMessageAt}#${c.id}` > scannedTo),
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
