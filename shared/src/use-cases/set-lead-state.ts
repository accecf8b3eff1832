import type { LeadInfo, LeadState } from '../contracts/conversations';
import type { AuditLog } from '../ports/audit-log';
import type { ConversationStore } from '../ports/conversation-store';

export interface SetLeadStateDeps {
  conversations: ConversationStore;
  audit: AuditLog;
  clock: () => Date;
}

/**
 * Where a lead stands (follow #20 owns `conversation.lead`; judgment's classifier and lead intake call this).
 * The no-reply rules read it: a lead with a showing booked or disqualified gets no drafted reply.
 */
export async function setLeadState(
  deps: SetLeadStateDeps,
  input: { conversationId: string; state: LeadState; property?: string; by: string },
): Promise<LeadInfo> {
  const lead: LeadInfo = {
    state: input.state,
    updatedAt: deps.clock().toISOString(),
    ...(input.property ? { property: input.property } : {}),
  };
  await deps.conversations.setThreadFields(input.conversationId, { lead });
  await deps.audit.append({
    conversationId: input.conversationId,
    type: 'lead.state',
    actor: input.by,
    data: lead,
  });
  return lead;
}

/** States in which the seed's rule says: no reply (the showing is booked, or the lead is out). */
export const NO_REPLY_STATES: ReadonlySet<LeadState> = new Set(['showing_booked', 'disqualified']);

/** A lead who writes puts the ball in our court — unless they are booked or out, which only a person changes. */
export function leadStateAfterInbound(current: LeadInfo | undefined): LeadState | undefined {
  if (!current) return 'new';
  if (NO_REPLY_STATES.has(current.state)) return undefined;
  return current.state === 'new' ? undefined : 'waiting_on_us';
}
