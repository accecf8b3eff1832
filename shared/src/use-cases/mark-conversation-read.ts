import { NotFoundError } from '../errors';
import type { ConversationStore } from '../ports/conversation-store';

export interface MarkReadDeps {
  conversations: ConversationStore;
  clock: () => Date;
}

/** Records that this person has seen the conversation up to now (their unread badge clears; others' stay). */
export async function markConversationRead(
  deps: MarkReadDeps,
  input: { conversationId: string; userId: string },
): Promise<{ readAt: string }> {
  const conversation = await deps.conversations.get(input.conversationId);
  if (!conversation) throw new NotFoundError(`No conversation ${input.conversationId}`);
  // Never before the last message: a mark that lags the clock of whoever wrote it would leave it "unread".
  const now = deps.clock().toISOString();
  const readAt = now.localeCompare(conversation.lastMessageAt) > 0 ? now : conversation.lastMessageAt;
  await deps.conversations.markRead(input.conversationId, input.userId, readAt);
  return { readAt };
}
