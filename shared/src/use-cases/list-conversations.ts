import type { ConversationSummary } from '../contracts/api';
import type { Conversation } from '../contracts/conversations';
import type { ConversationStore } from '../ports/conversation-store';

export interface ListConversationsDeps {
  conversations: ConversationStore;
}

/** The team's shared inbox, most recent first, with the caller's own unread marks. */
export async function listConversations(
  deps: ListConversationsDeps,
  input: { userId: string; limit?: number },
): Promise<ConversationSummary[]> {
  const list = await deps.conversations.list({ limit: input.limit ?? 50 });
  return list.map((c) => toSummary(c, input.userId));
}

/**
 * Conversations are shared, read marks are not: a conversation is unread for this person when something
 * arrived after they last opened it (or they never did).
 */
export function toSummary(c: Conversation, userId: string): ConversationSummary {
  const readAt = c.readBy?.[userId];
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
    ...(c.assignee ? { assignee: c.assignee } : {}),
    ...(c.lead ? { lead: c.lead } : {}),
    ...(c.channels ? { channels: c.channels } : {}),
  };
}
