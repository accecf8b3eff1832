import type { Conversation } from '../contracts/conversations';
import { DIGEST_CONVERSATION_PREFIX } from './digest-prefix';

/**
 * Conversations are the team's, except one person's own (follow #20: the daily digest thread). Digest threads
 * written before `privateTo` existed are recognised by their id and belong to their assignee, so no record
 * needs rewriting.
 */
export function privateOwner(c: Pick<Conversation, 'id' | 'privateTo' | 'assignee' | 'createdBy'>) {
  if (c.privateTo) return c.privateTo;
  return c.id.startsWith(DIGEST_CONVERSATION_PREFIX) ? (c.assignee ?? c.createdBy) : undefined;
}

export function visibleTo(
  c: Pick<Conversation, 'id' | 'privateTo' | 'assignee' | 'createdBy'>,
  userId: string,
): boolean {
  const owner = privateOwner(c);
  return owner === undefined || owner === userId;
}
