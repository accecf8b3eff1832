import type { FollowUp } from '../contracts/followups';

export interface FollowUpStore {
  /** Idempotent on id: a replayed setup keeps the first record. */
  create(f: FollowUp): Promise<void>;
  get(conversationId: string, id: string): Promise<FollowUp | undefined>;
  listByConversation(conversationId: string): Promise<FollowUp[]>;
  /** Scheduled follow-ups due before `before`, across the team (the daily digest). */
  listDue(before: string): Promise<FollowUp[]>;
  /** Moves the status if it is one of `from`; the updated record, or undefined when another move won. */
  transition(
    conversationId: string,
    id: string,
    from: FollowUp['status'][],
    to: FollowUp['status'],
    fields?: Partial<Pick<FollowUp, 'note' | 'sendingSince' | 'updatedAt'>>,
  ): Promise<FollowUp | undefined>;
}
