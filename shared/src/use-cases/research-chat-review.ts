import { ConflictError, isAppError } from '../errors';
import type { ConversationStore } from '../ports/conversation-store';
import type { ResearchDeps } from '../research/engine-deps';
import { approveResearchPlan, cancelResearch } from './review-research';

/**
 * Answers to "the research plan waits for your review" (research/review-message.ts) that decide it: the whole
 * message, give or take "please" and punctuation. "Yes, but only the last 3 months" is not an approval of
 * the plan as shown: it goes on to the planner, and the plan keeps waiting.
 */
const RUN_PLAN =
  /^\s*(yes|y|yep|ok(ay)?|approve[d]?( it| the plan)?|run( it| the plan)?|go( ahead)?|start( it)?|looks good)(,?\s*(please|thanks|thank you))?[\s.!]*$/i;
const DROP_PLAN =
  /^\s*(no|nope|cancel|drop|stop)( it| that| the plan| the research)?(,?\s*(please|thanks|thank you))?[\s.!]*$/i;

/** Only the latest research messages matter: a plan in review is always recent in its conversation. */
const LOOK_BACK = 30;

export interface ChatReviewDeps {
  conversations: ConversationStore;
  research?: ResearchDeps;
  turn?: { flush(): Promise<void> } | undefined;
}

/**
 * A person answers a plan waiting for review from the chat ("run it", "cancel"): the same approve / cancel
 * as the PWA's buttons, recorded with their name. Only a message that reads as such an answer looks for a
 * plan (the conversation's own messages, already in the turn, then the task item), so other chat turns
 * cost nothing; with no plan in review the message goes on to the planner as usual.
 */
export async function researchChatReview(
  deps: ChatReviewDeps,
  conversationId: string,
  text: string,
  user: { id: string; email: string; name?: string | undefined },
): Promise<{ outcome: string } | undefined> {
  const run = RUN_PLAN.test(text);
  if (!deps.research || (!run && !DROP_PLAN.test(text))) return undefined;
  const taskId = await planInReview(deps, deps.research, conversationId);
  if (!taskId) return undefined;
  const reviewer = { id: user.id, name: user.name ?? user.email };
  let reply: string | undefined;
  try {
    if (run) {
      const g = await approveResearchPlan(deps.research, taskId, reviewer);
      const steps = g?.nodes.filter((n) => n.parentId === 'r').length ?? 0;
      reply = `Approved — running the plan's ${steps} steps now. Their progress shows below.`;
    } else {
      // Cancelling writes its own "Research cancelled by …" message.
      await cancelResearch(deps.research, taskId, reviewer);
    }
  } catch (e) {
    if (!isAppError(e) || e.retryable) throw e;
    reply = e instanceof ConflictError ? `${e.message}.` : `That did not work: ${e.message}`;
  }
  if (reply) await say(deps, conversationId, taskId, reply);
  await deps.turn?.flush();
  return { outcome: `research ${taskId}: ${run ? 'approved' : 'cancelled'} from the chat` };
}

/** The conversation's latest research task, if its plan is the one waiting for a person. */
async function planInReview(deps: ChatReviewDeps, research: ResearchDeps, conversationId: string) {
  const messages = await deps.conversations.listMessages(conversationId, { limit: LOOK_BACK });
  const taskId = messages.findLast((m) => m.research?.taskId)?.research?.taskId;
  if (!taskId) return undefined;
  const task = await research.research.getTask(taskId);
  return task?.status === 'review' ? taskId : undefined;
}

async function say(deps: ChatReviewDeps, conversationId: string, taskId: string, text: string) {
  const at = deps.research?.clock().toISOString() ?? new Date().toISOString();
  await deps.conversations.appendMessage({
    id: `m_research_reviewed_${taskId}_${Date.parse(at)}`,
    conversationId,
    role: 'assistant',
    text,
    createdAt: at,
    channel: 'web',
    author: { kind: 'assistant', name: 'Switchboard' },
  });
}
