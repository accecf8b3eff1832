import type { PendingAction } from '../contracts/conversations';
import { ConflictError, NotFoundError } from '../errors';
import type { ActionStore } from '../ports/action-store';
import type { AuditLog } from '../ports/audit-log';
import type { ConversationStore } from '../ports/conversation-store';

export interface ClaimCardDeps {
  actions: ActionStore;
  conversations: Pick<ConversationStore, 'setThreadFields'>;
  audit: AuditLog;
  clock: () => Date;
}

/**
 * "I'm on it" on a waiting card (cards #18): the person is recorded on the card (`claim`) and mirrored on the
 * conversation (`claimedBy`, the inbox's "Mine"). A claim is a note to the team, not a lock: anyone can still
 * approve, deny or redraft, and a later claim by someone else replaces it. Only a PENDING card can be taken
 * (a conditional write on its status, so a claim never lands on a card decided meanwhile: 409 with the card).
 * The card's write publishes `card.changed`, so every open app shows the claim at once.
 */
export async function claimCard(
  deps: ClaimCardDeps,
  input: { conversationId: string; actionId: string; user: { id: string; email: string; name?: string } },
): Promise<PendingAction> {
  const card = await deps.actions.get(input.conversationId, input.actionId);
  if (!card) throw new NotFoundError(`No action ${input.actionId} in conversation ${input.conversationId}`);
  const at = deps.clock().toISOString();
  const claim = { by: input.user.id, name: input.user.name ?? input.user.email, at };
  const updated =
    card.status === 'PENDING'
      ? await deps.actions.transition(input.conversationId, input.actionId, ['PENDING'], 'PENDING', {
          claim,
          updatedAt: at,
        })
      : undefined;
  if (!updated) {
    const current = (await deps.actions.get(input.conversationId, input.actionId)) ?? card;
    throw new ConflictError(`This card was already decided (${current.status.toLowerCase()})`, {
      action: current,
    });
  }
  await deps.conversations.setThreadFields(input.conversationId, { claimedBy: input.user.id });
  await deps.audit.append({
    conversationId: input.conversationId,
    type: 'card.claimed',
    actor: input.user.email,
    at,
    data: { actionId: input.actionId, tool: card.tool, ...(card.claim ? { replaced: card.claim.by } : {}) },
  });
  return updated;
}
