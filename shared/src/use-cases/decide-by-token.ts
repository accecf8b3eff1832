import type { PendingAction } from '../contracts/conversations';
import { verifyActionToken } from '../domain/action-token';
import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError } from '../errors';
import { type DecideApprovalDeps, decideApproval } from './decide-approval';

export interface DecideByTokenDeps extends DecideApprovalDeps {
  /** The action-token key (domain/action-token.ts); absent when push is not configured. */
  actionTokenKey?: Buffer;
}

const WHY: Record<'malformed' | 'signature' | 'expired', string> = {
  malformed: 'This notification action is not valid; open the card instead.',
  signature: 'This notification action is not valid; open the card instead.',
  expired: 'This notification has expired; open the card instead.',
};

/**
 * Approve / Deny pressed on a notification (cards #18). The token stands in for the session, for this card
 * and this person only: it must verify, name this very card, and carry the hash of the arguments the card
 * still has (a card whose draft changed is never decided from a stale notification). Then it is the same
 * decision as the PWA's, under the token's person — never an admin (a policy change needs the app). A
 * second use finds the card decided: 409, so the token is single-use by the card's own transition.
 */
export async function decideByToken(
  deps: DecideByTokenDeps,
  input: { conversationId: string; actionId: string; token: string; decision: 'approve' | 'deny' },
): Promise<PendingAction> {
  if (!deps.actionTokenKey) throw new NotFoundError('Notification actions are not configured here.');
  const check = verifyActionToken(deps.actionTokenKey, input.token, deps.clock());
  if (!check.ok) throw new UnauthorizedError(WHY[check.reason]);
  const { claims } = check;
  if (claims.a !== input.actionId || claims.c !== input.conversationId)
    throw new ForbiddenError('This notification action is for another card.');
  const card = await deps.actions.get(input.conversationId, input.actionId);
  if (!card) throw new NotFoundError(`No action ${input.actionId} in conversation ${input.conversationId}`);
  if (card.argsHash !== claims.h)
    throw new ConflictError('The draft changed since this notification; open the card to decide.', {
      action: card,
    });
  return decideApproval(deps, {
    conversationId: input.conversationId,
    actionId: input.actionId,
    decision: input.decision,
    user: { id: claims.u, email: claims.m, ...(claims.n ? { name: claims.n } : {}), isAdmin: false },
  });
}
