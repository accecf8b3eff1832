import type { ConversationDetail, RunView } from '../contracts/api';
import type { PendingAction } from '../contracts/conversations';
import type { Run } from '../contracts/runs';
import { visibleTo } from '../domain/visibility';
import { NotFoundError } from '../errors';
import type { ActionStore } from '../ports/action-store';
import type { ConversationStore } from '../ports/conversation-store';
import type { FollowUpStore } from '../ports/followup-store';
import type { RunStore } from '../ports/run-store';
import { toSummary } from './list-conversations';

export interface GetConversationDeps {
  conversations: ConversationStore;
  actions: ActionStore;
  runs: RunStore;
  followups?: FollowUpStore;
}

/**
 * One conversation as the PWA shows it: messages (tool activity included), every card with its current
 * status, where the latest run stands, and — while a card awaits a decision — why the input is locked.
 */
export async function getConversation(
  deps: GetConversationDeps,
  input: { conversationId: string; userId: string },
): Promise<ConversationDetail> {
  const conversation = await deps.conversations.get(input.conversationId);
  // Another person's own conversation (their digest) is answered as absent: its existence is theirs too.
  if (!conversation || !visibleTo(conversation, input.userId))
    throw new NotFoundError(`No conversation ${input.conversationId}`);
  const [messages, actions, active, followups] = await Promise.all([
    deps.conversations.listMessages(input.conversationId),
    deps.actions.listByConversation(input.conversationId),
    deps.runs.findActive(input.conversationId),
    deps.followups?.listByConversation(input.conversationId),
  ]);
  actions.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  let run: Run | undefined = active;
  if (!run) {
    const latest = latestRunId([...messages, ...actions]);
    run = latest ? await deps.runs.get(input.conversationId, latest) : undefined;
  }
  return {
    conversation: toSummary(conversation, input.userId),
    messages,
    actions,
    run: run ? toRunView(run) : null,
    lock: inputLock(actions),
    ...(followups?.length ? { followups: followups.sort((a, b) => a.at.localeCompare(b.at)) } : {}),
  };
}

/**
 * SPEC §3.2's pending-action gate, as the person sees it: while a card awaits a decision, the next word in
 * this conversation is that decision, so the input is locked and says which card is waiting.
 */
export function inputLock(actions: PendingAction[]): ConversationDetail['lock'] {
  const waiting = actions
    .filter((a) => a.status === 'PENDING')
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))[0];
  if (!waiting) return null;
  return {
    actionId: waiting.id,
    reason: `Waiting for a decision on “${waiting.summary}”. Approve or deny it before sending a new message.`,
  };
}

function latestRunId(items: Array<{ runId?: string; createdAt: string }>): string | undefined {
  let best: { runId?: string; createdAt: string } | undefined;
  for (const i of items) if (i.runId && (!best || i.createdAt > best.createdAt)) best = i;
  return best?.runId;
}

export function toRunView(r: Run): RunView {
  return {
    id: r.id,
    status: r.status,
    mode: r.mode,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    ...(r.awaitingActionId ? { awaitingActionId: r.awaitingActionId } : {}),
    ...(r.outcome ? { outcome: r.outcome } : {}),
  };
}
