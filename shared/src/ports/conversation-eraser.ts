import type { DeletionTombstone, ErasedCounts, ErasePlan } from '../contracts/deletion';

/**
 * Erases one conversation's records for good (issue 19's admin delete) and keeps the tombstones. Every
 * method is idempotent: a deletion that stopped halfway is finished by running it again.
 */
export interface ConversationEraser {
  getTombstone(conversationId: string): Promise<DeletionTombstone | undefined>;
  /** Writes (or replaces) the conversation's tombstone. */
  putTombstone(t: DeletionTombstone): Promise<void>;
  /** Newest first. */
  listTombstones(opts: { limit: number }): Promise<DeletionTombstone[]>;
  /**
   * Deletes the trigger mappings that still point at the conversation, its own partition (conversation,
   * messages, cards, runs and steps, audit, intent, follow-ups), its facts, and the media, call and research
   * records the plan names. Returns what was deleted.
   */
  erase(conversationId: string, plan: ErasePlan): Promise<ErasedCounts>;
}
