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
   * The events that came in for the conversation: its runs' triggers, and every event recorded in the ledger
   * under one of `keys` (the person's `sms:+1…`, the conversation's `conv:<id>`) at or before `until`, unless
   * another conversation's run took it. Read before anything is erased (the runs go with the partition).
   */
  eventIdsOf(conversationId: string, keys: string[], until: string): Promise<string[]>;
  /**
   * Deletes the trigger mappings that still point at the conversation, its own partition (conversation,
   * messages, cards, runs and steps, audit, intent, follow-ups), its facts, and the media, call and research
   * records the plan names, and strips the plan's events in the ledger to their ids, status and time. Returns
   * what was deleted.
   */
  erase(conversationId: string, plan: ErasePlan): Promise<ErasedCounts>;
}
