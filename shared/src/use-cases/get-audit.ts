import type { AuditEvent } from '../contracts/conversations';
import { NotFoundError } from '../errors';
import type { AuditLog } from '../ports/audit-log';
import type { ConversationStore } from '../ports/conversation-store';

export interface GetAuditDeps {
  conversations: ConversationStore;
  audit: AuditLog;
}

/** The append-only record of who (or which run) did what in a conversation, oldest first. */
export async function getAudit(
  deps: GetAuditDeps,
  input: { conversationId: string; limit?: number },
): Promise<AuditEvent[]> {
  const conversation = await deps.conversations.get(input.conversationId);
  if (!conversation) throw new NotFoundError(`No conversation ${input.conversationId}`);
  return deps.audit.list(input.conversationId, input.limit ? { limit: input.limit } : undefined);
}
