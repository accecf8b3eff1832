import { z } from 'zod';
import type { Conversation } from '../contracts/conversations';
import { NotFoundError } from '../errors';
import type { AuditLog } from '../ports/audit-log';
import type { ConversationStore } from '../ports/conversation-store';

export interface SetStatusDeps {
  conversations: ConversationStore;
  audit: AuditLog;
  clock: () => Date;
}

export const conversationStatusRequest = z.object({ status: z.enum(['open', 'done', 'archived']) });

/**
 * Done / archived / open again (issue 19). Done and archived leave the default inbox view (a card still
 * waiting keeps it in view) and the next inbound message brings the conversation back (the stores reopen it
 * in the same write that moves it forward). Who did it goes to the conversation's audit trail.
 */
export async function setConversationStatus(
  deps: SetStatusDeps,
  input: { conversationId: string; status: NonNullable<Conversation['status']>; user: { email: string } },
): Promise<{ status: NonNullable<Conversation['status']> }> {
  const convo = await deps.conversations.get(input.conversationId);
  if (!convo) throw new NotFoundError(`No conversation ${input.conversationId}`);
  const from = convo.status ?? 'open';
  if (from === input.status) return { status: from };
  await deps.conversations.setInboxFields(input.conversationId, { status: input.status });
  await deps.audit.append({
    conversationId: input.conversationId,
    type: 'conversation.status_changed',
    actor: input.user.email,
    at: deps.clock().toISOString(),
    data: { from, to: input.status },
  });
  return { status: input.status };
}
