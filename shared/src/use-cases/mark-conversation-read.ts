import { NotFoundError } from '../errors';
import type { ConversationStore } from '../ports/conversation-store';

export interface MarkReadDeps {
  conversations: ConversationStore;
  clock: () => Date;
}

/**
 * Records that this person has seen the conversation (their unread badge clears; others' stay): up to the
 * newest message their screen showed (`through`) when they say so, else up to now.
 */
export async function markConversationRead(
  deps: MarkReadDeps,
  input: { conversationId: string; userId: string; through?: string },
): Promise<{ readAt: string }> {
  const conversation = await deps.conversations.get(input.conversationId);
  if (!conversation) throw new NotFoundError(`No conversation ${input.conversationId}`);
  // Never before the last message: a mark that lags the clock of whoever wrote it would leave it "unread".
  const now = deps.clock().toISOString();
  const upToNow = now.localeCompare(conversation.lastMessageAt) > 0 ? now : conversation.lastMessageAt;
  // A message that arrived after the screen loaded stays unread: the mark stops at what was shown (and a
  // `through` from the future, a client's clock or a forged one, counts as now).
  const through = input.through ? new Date(input.through).toISOString() : undefined;
  const readAt = through && through.localeCompare(upToNow) < 0 ? through : upToNow;
  await deps.conversations.markRead(input.conversationId, input.userId, readAt);
  return { readAt };
}
