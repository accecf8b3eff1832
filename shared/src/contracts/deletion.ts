import { z } from 'zod';
import { source } from './conversations';

/**
 * Admin delete of a conversation (issue 19): what the confirm screen shows, what the API takes, and the
 * tombstone that is all that remains. The tombstone names the conversation by id and kind only — never the
 * person, their number or their words — so it can be kept as the audit of who deleted what and when.
 */

/** What was erased, by kind of record. */
export const erasedCounts = z.object({
  conversation: z.number().int().nonnegative(),
  messages: z.number().int().nonnegative(),
  cards: z.number().int().nonnegative(),
  runs: z.number().int().nonnegative(),
  steps: z.number().int().nonnegative(),
  audit: z.number().int().nonnegative(),
  facts: z.number().int().nonnegative(),
  media: z.number().int().nonnegative(),
  triggers: z.number().int().nonnegative(),
  calls: z.number().int().nonnegative(),
  research: z.number().int().nonnegative(),
  /**
   * Event-ledger entries stripped to their ids, status and time (the trigger key — a phone number or address —
   * and the reason go). Absent on tombstones written before the ledger was stripped.
   */
  ledger: z.number().int().nonnegative().default(0),
  /** Anything else in the conversation's partition (pending intent, follow-ups, …). */
  other: z.number().int().nonnegative(),
});
export type ErasedCounts = z.infer<typeof erasedCounts>;

/**
 * The keys outside the conversation's own partitions that point at it, found before anything is erased. Kept
 * on the tombstone only while the deletion runs, so a crash halfway can finish from the tombstone alone; the
 * finished tombstone drops them (trigger keys hold phone numbers and addresses).
 */
export const erasePlan = z.object({
  triggerKeys: z.array(z.string()),
  mediaIds: z.array(z.string()),
  callIds: z.array(z.string()),
  researchTaskIds: z.array(z.string()),
  actionIds: z.array(z.string()),
  /** The events that came in for the conversation, whose ledger entries keep only their ids (issue 19). */
  eventIds: z.array(z.string()).default([]),
  /** Schedules set for the conversation besides its cards' (follow-ups, the lead check): cancelled. */
  timerNames: z.array(z.string()).default([]),
});
export type ErasePlan = z.infer<typeof erasePlan>;

export const deletionTombstone = z.object({
  conversationId: z.string(),
  source,
  /** When the conversation itself began. */
  conversationCreatedAt: z.string(),
  /** The admin's email, or `ops:<os user>` from the CLI. */
  deletedBy: z.string(),
  deletedAt: z.string(),
  state: z.enum(['deleting', 'deleted']),
  finishedAt: z.string().optional(),
  erased: erasedCounts.optional(),
  pending: erasePlan.optional(),
});
export type DeletionTombstone = z.infer<typeof deletionTombstone>;

/** `POST /api/admin/conversations/:id/delete`: the id typed again, so a stray request deletes nothing. */
export const deleteConversationRequest = z.object({
  confirm: z.string().trim().min(1, 'confirm with the conversation id').max(200),
});

/** What the confirm screen lists before anything is deleted. */
export const deletionPreview = z.object({
  conversationId: z.string(),
  title: z.string(),
  source,
  createdAt: z.string(),
  counts: z.object({
    messages: z.number().int().nonnegative(),
    cards: z.number().int().nonnegative(),
    runs: z.number().int().nonnegative(),
    audit: z.number().int().nonnegative(),
    facts: z.number().int().nonnegative(),
    media: z.number().int().nonnegative(),
  }),
  /** Cards still waiting: deleting withdraws them (their timers are cancelled, nothing is sent). */
  pendingCards: z.number().int().nonnegative(),
});
export type DeletionPreview = z.infer<typeof deletionPreview>;

export const deleteConversationResponse = z.object({ tombstone: deletionTombstone });
export const deletionsResponse = z.object({ tombstones: z.array(deletionTombstone) });
