import type { FollowUp } from '../contracts/followups';
import { ConflictError, NotFoundError } from '../errors';
import type { AuditLog } from '../ports/audit-log';
import type { ConversationStore } from '../ports/conversation-store';
import type { FollowUpStore } from '../ports/followup-store';
import type { Timers } from '../ports/timers';
import { followUpTimerName } from '../tools/followups';

export interface CancelFollowUpDeps {
  followups: FollowUpStore;
  conversations: ConversationStore;
  audit: AuditLog;
  clock: () => Date;
  timers?: Timers;
}

/**
 * A person cancels a scheduled follow-up from the conversation. Conditional on `scheduled`: one already sent
 * (or being sent) is a 409 saying so. Its timer is deleted; a timer that fires anyway finds it cancelled.
 */
export async function cancelFollowUp(
  deps: CancelFollowUpDeps,
  input: { conversationId: string; followupId: string; user: { id: string; email: string; name?: string } },
): Promise<FollowUp> {
  const f = await deps.followups.get(input.conversationId, input.followupId);
  if (!f) throw new NotFoundError(`No follow-up ${input.followupId} in this conversation`);
  const at = deps.clock().toISOString();
  const who = input.user.name ?? input.user.email;
  const moved = await deps.followups.transition(f.conversationId, f.id, ['scheduled'], 'cancelled', {
    note: `Cancelled by ${who}`,
    updatedAt: at,
  });
  if (!moved)
    throw new ConflictError(`This follow-up is already ${f.status === 'sending' ? 'being sent' : f.status}.`);
  await deps.timers?.cancel(followUpTimerName(f.conversationId, f.id));
  await deps.conversations.appendMessage({
    id: `m_${f.id}_cancelled`,
    conversationId: f.conversationId,
    role: 'system',
    text: `${who} cancelled the scheduled ${f.kind === 'text' ? 'text to' : 'reminder for'} ${f.toName ?? f.to}.`,
    createdAt: at,
    author: { kind: 'user', name: who, id: input.user.id },
  });
  await deps.audit.append({
    conversationId: f.conversationId,
    type: 'followup.cancelled',
    actor: input.user.email,
    data: { followupId: f.id },
  });
  return moved;
}
