import type { PendingAction } from '../contracts/conversations';
import { ConflictError, NotFoundError } from '../errors';
import type { ActionStore } from '../ports/action-store';
import type { AuditLog } from '../ports/audit-log';
import type { ConversationStore } from '../ports/conversation-store';

export interface ClaimCardDeps {
  actions: ActionStore;
  conversations: Pick<ConversationStore, 'get' | 'setThreadFields'>;
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
  const updated = await setClaim(deps, card, claim, at);
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

/**
 * "Release" (cards #18): the person who said "I'm on it" takes it back (tapped by mistake, or handing it on),
 * so the team no longer counts on them and the conversation leaves their "Mine". Only the claimer releases —
 * anyone else takes the card over with "I'm on it" instead (409 saying who holds it). A card decided
 * meanwhile answers 409 with the card, as a claim does.
 */
export async function releaseCard(
  deps: ClaimCardDeps,
  input: { conversationId: string; actionId: string; user: { id: string; email: string } },
): Promise<PendingAction> {
  const card = await deps.actions.get(input.conversationId, input.actionId);
  if (!card) throw new NotFoundError(`No action ${input.actionId} in conversation ${input.conversationId}`);
  if (!card.claim) return card;
  if (card.claim.by !== input.user.id)
    throw new ConflictError(`${card.claim.name} is on it; only they can release it`, { action: card });
  const at = deps.clock().toISOString();
  const updated = await setClaim(deps, card, null, at);
  // The conversation mirrors the latest claim in it: someone else's claim on another card stays.
  const conversation = await deps.conversations.get(input.conversationId);
  if (conversation?.claimedBy === input.user.id)
    await deps.conversations.setThreadFields(input.conversationId, { claimedBy: null });
  await deps.audit.append({
    conversationId: input.conversationId,
    type: 'card.released',
    actor: input.user.email,
    at,
    data: { actionId: input.actionId, tool: card.tool },
  });
  return updated;
}

/** The claim put on (or, null, taken off) a card that still waits; a card decided meanwhile is a 409 with it. */
async function setClaim(
  deps: ClaimCardDeps,
  card: PendingAction,
  claim: PendingAction['claim'] | null,
  at: string,
): Promise<PendingAction> {
  const updated =
    card.status === 'PENDING'
      ? await deps.actions.transition(card.conversationId, card.id, ['PENDING'], 'PENDING', {
          claim,
          updatedAt: at,
        })
      : undefined;
  if (updated) return updated;
  const current = (await deps.actions.get(card.conversationId, card.id)) ?? card;
  throw new ConflictError(`This card was already decided (${current.status.toLowerCase()})`, {
    action: current,
  });
}
