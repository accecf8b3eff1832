import type { PlanItem, ResearchTask } from '../contracts/research';
import type { ResearchDeps } from './engine-deps';

/** What a person may reply in the chat to a plan waiting for review (read by use-cases/research-chat-review). */
export const REVIEW_REPLY_HINT =
  'Reply “run it” to run it as shown, or “cancel” to drop it; to change steps, edit the plan below.';

/**
 * The plan waiting for review, said in the conversation: the steps in words, why it waits, and how to answer
 * from the chat — so a person who only reads the chat (or a phone notification) can approve it too. The id
 * and time come from the draft's save, so a repeat of the same step writes the same message once.
 */
export async function announceReview(
  deps: Pick<ResearchDeps, 'conversations'>,
  task: Pick<ResearchTask, 'id' | 'conversationId'>,
  items: readonly PlanItem[],
  why: string,
  at: string,
  /** What makes this plan message unique when `at` may repeat (the chat message that edited the plan). */
  key?: string,
): Promise<void> {
  const steps = items.map(
    (i, n) => `${n + 1}. ${i.goal}${i.subtasks?.length ? ` (${i.subtasks.length} steps)` : ''}`,
  );
  await deps.conversations.appendMessage({
    id: `m_research_review_${task.id}_${key ?? Date.parse(at)}`,
    conversationId: task.conversationId,
    role: 'assistant',
    text: [`The research plan waits for your review — ${why}:`, ...steps, '', REVIEW_REPLY_HINT].join('\n'),
    createdAt: at,
    channel: 'web',
    author: { kind: 'assistant', name: 'Switchboard' },
  });
}
