import { z } from 'zod';
import { type CardTimerSettings, cancelCardTimers } from '../agent/card-timers';
import type { Conversation, Message } from '../contracts/conversations';
import type { DeletionPreview, DeletionTombstone, ErasePlan } from '../contracts/deletion';
import { leadCheckTimerName } from '../domain/lead-check';
import { NotFoundError, ValidationError } from '../errors';
import type { ConversationEraser } from '../ports/conversation-eraser';
import type { FollowUpStore } from '../ports/followup-store';
import type { LiveUpdates } from '../ports/live-updates';
import { followUpTimerName } from '../tools/followups';
import { type ExportConversationDeps, exportConversation } from './export-conversation';

/**
 * Admin delete (issue 19, privacy requests): the conversation's own records go — messages, cards, runs and
 * their steps, audit, facts, media and call records, research tasks it started, the trigger mappings that
 * lead to it, and (as the index drops what gsi1 no longer lists) its search entries — and a tombstone of who
 * deleted what and when stays. The memory repository's history is the team's memory and is not rewritten;
 * the event ledger keeps event ids, statuses and times only (its keys hold phone numbers and addresses). Beside `export-conversation.ts`, and like it used by
 * both the API (`/api/admin/conversations/:id/delete`) and `npm run ops -- conversation:delete`.
 */
export interface DeleteConversationDeps extends ExportConversationDeps {
  eraser: ConversationEraser;
  /**
   * Waiting cards' expiry, re-notify and team-notify schedules, scheduled follow-ups' and the lead check's
   * are cancelled (a fired one would find nothing anyway, but the scheduler would keep naming the conversation).
   */
  cardTimers?: Pick<CardTimerSettings, 'timers'>;
  /** The conversation's scheduled follow-ups (follow #20), whose timers go with it. */
  followups?: FollowUpStore;
  /** Open apps refetch, and find the conversation gone. */
  live?: LiveUpdates;
  /** This container's search index forgets it at once (others drop it at their next refresh). */
  search?: { forget(conversationId: string): void };
}

export const deleteConversationInput = z.object({
  conversationId: z.string().trim().min(1, 'a conversation id is required').max(200),
  /** The id typed again: a request without it deletes nothing. */
  confirm: z.string().trim().max(200),
  deletedBy: z.string().min(1).max(200),
});

/** What the confirm screen lists: the same counts an export of the conversation reports. */
export async function previewDeletion(
  deps: ExportConversationDeps,
  conversationId: string,
): Promise<DeletionPreview> {
  const file = await exportConversation(deps, { conversationId, exportedBy: 'preview' });
  const { messages, cards, runs, audit, facts, media } = file.counts;
  return {
    conversationId: file.conversation.id,
    title: file.conversation.title,
    source: file.conversation.source,
    createdAt: file.conversation.createdAt,
    counts: { messages, cards, runs, audit, facts, media },
    pendingCards: file.cards.filter((c) => c.status === 'PENDING').length,
  };
}

export async function deleteConversation(
  deps: DeleteConversationDeps,
  raw: z.input<typeof deleteConversationInput>,
): Promise<DeletionTombstone> {
  const parsed = deleteConversationInput.safeParse(raw);
  if (!parsed.success) throw new ValidationError(parsed.error.issues.map((i) => i.message).join('; '));
  const { conversationId, confirm, deletedBy } = parsed.data;
  if (confirm !== conversationId)
    throw new ValidationError(`To delete, confirm with the conversation id "${conversationId}".`);
  const earlier = await deps.eraser.getTombstone(conversationId);
  if (earlier?.state === 'deleted') return earlier;
  const started = earlier ?? (await begin(deps, conversationId, deletedBy));
  const plan = started.pending ?? emptyPlan();
  for (const actionId of plan.actionIds) await cancelCardTimers(deps, actionId);
  for (const name of plan.timerNames) await deps.cardTimers?.timers?.cancel(name);
  const erased = await deps.eraser.erase(conversationId, plan);
  const { pending: _dropped, ...rest } = started;
  const done: DeletionTombstone = {
    ...rest,
    state: 'deleted',
    finishedAt: deps.clock().toISOString(),
    erased,
  };
  await deps.eraser.putTombstone(done);
  deps.search?.forget(conversationId);
  await deps.live?.publish({ type: 'conversation.changed', conversationId });
  return done;
}

/** Reads what points at the conversation and writes the tombstone BEFORE anything is erased. */
async function begin(
  deps: DeleteConversationDeps,
  conversationId: string,
  deletedBy: string,
): Promise<DeletionTombstone> {
  const convo = await deps.conversations.get(conversationId);
  if (!convo) throw new NotFoundError(`No conversation ${conversationId}`);
  const [messages, cards, followups] = await Promise.all([
    deps.conversations.listMessages(conversationId),
    deps.actions.listByConversation(conversationId),
    deps.followups?.listByConversation(conversationId) ?? [],
  ]);
  const deletedAt = deps.clock().toISOString();
  const plan = planOf(
    convo,
    messages,
    cards.filter((c) => c.status === 'PENDING').map((c) => c.id),
  );
  plan.timerNames = [
    ...followups.filter((f) => f.status === 'scheduled').map((f) => followUpTimerName(conversationId, f.id)),
    ...(convo.lead ? [leadCheckTimerName(conversationId, convo.lead.updatedAt)] : []),
  ];
  // The ledger under the person's keys up to now; later events are a new conversation's.
  plan.eventIds = await deps.eraser.eventIdsOf(
    conversationId,
    [...plan.triggerKeys, `conv:${conversationId}`],
    deletedAt,
  );
  const tombstone: DeletionTombstone = {
    conversationId,
    source: convo.source,
    conversationCreatedAt: convo.createdAt,
    deletedBy,
    deletedAt,
    state: 'deleting',
    pending: plan,
  };
  await deps.eraser.putTombstone(tombstone);
  return tombstone;
}

const emptyPlan = (): ErasePlan => ({
  triggerKeys: [],
  mediaIds: [],
  callIds: [],
  researchTaskIds: [],
  actionIds: [],
  eventIds: [],
  timerNames: [],
});

/**
 * Keys outside the conversation's partition. Trigger mappings: the conversation's own key plus the ones one
 * thread per person maps for its contact (use-cases/person-thread.ts) — each is deleted only if it still
 * points here.
 */
export function planOf(c: Conversation, messages: Message[], pendingActionIds: string[]): ErasePlan {
  const keys = new Set<string>();
  if (c.triggerKey) keys.add(c.triggerKey);
  if (c.contact?.id) keys.add(`person:${c.contact.id}`);
  if (c.contact?.phone) keys.add(`sms:${c.contact.phone}`);
  if (c.contact?.email) keys.add(`person:email:${c.contact.email.toLowerCase()}`);
  return {
    triggerKeys: [...keys],
    mediaIds: [...new Set(messages.flatMap((m) => (m.media ?? []).map((x) => x.id)))],
    callIds: [...new Set(messages.flatMap((m) => (m.call ? [m.call.callId] : [])))],
    researchTaskIds: [...new Set(messages.flatMap((m) => (m.research ? [m.research.taskId] : [])))],
    actionIds: pendingActionIds,
    eventIds: [],
    timerNames: [],
  };
}
