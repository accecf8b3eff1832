import { withoutSteps } from '../domain/research/graph';
import { ConflictError, isAppError, ValidationError } from '../errors';
import type { ConversationStore } from '../ports/conversation-store';
import type { ResearchDeps } from '../research/engine-deps';
import { announceReview } from '../research/review-message';
import { reviewText } from '../research/text-updates';

/**
 * The review use cases bring the engine's plan materializer (run-research-node): loaded when a reply decides a
 * plan, not at every cold start of the worker and api-stream, whose chats pass here (issue 16).
 */
const reviewResearch = () => import('./review-research');

/**
 * Answers to "the research plan waits for your review" (research/review-message.ts) that decide it: the whole
 * message, give or take "please" and punctuation. "Yes, but only the last 3 months" is not an approval of
 * the plan as shown: it goes on to the planner, and the plan keeps waiting.
 */
const RUN_PLAN =
  /^\s*(yes|y|yep|ok(ay)?|approve[d]?( it| the plan)?|run( it| the plan)?|go( ahead)?|start( it)?|looks good)(,?\s*(please|thanks|thank you))?[\s.!]*$/i;
const DROP_PLAN =
  /^\s*(no|nope|cancel|drop|stop)( it| that| the plan| the research)?(,?\s*(please|thanks|thank you))?[\s.!]*$/i;
/** "remove 2", "drop steps 2 and 4", "skip 3, 5": the numbers as the plan message lists its steps. */
const REMOVE_STEPS =
  /^\s*(?:remove|drop|skip|delete)\s+(?:steps?\s+)?(\d+(?:\s*(?:,|and|&)?\s*\d+)*)(,?\s*(please|thanks|thank you))?[\s.!]*$/i;

/** Only the latest research messages matter: a plan in review is always recent in its conversation. */
const LOOK_BACK = 30;

export interface ChatReviewDeps {
  conversations: ConversationStore;
  research?: ResearchDeps;
  turn?: { flush(): Promise<void> } | undefined;
}

type Reviewer = { id: string; email: string; name?: string | undefined };
type Decision = { kind: 'run' } | { kind: 'drop' } | { kind: 'remove'; numbers: number[] };

function decisionOf(text: string): Decision | undefined {
  if (RUN_PLAN.test(text)) return { kind: 'run' };
  if (DROP_PLAN.test(text)) return { kind: 'drop' };
  const remove = text.match(REMOVE_STEPS);
  if (remove?.[1]) return { kind: 'remove', numbers: (remove[1].match(/\d+/g) ?? []).map(Number) };
  return undefined;
}

/**
 * A person answers a plan waiting for review from the chat ("run it", "cancel", "remove 2 4"): the same
 * approve / cancel / edit as the PWA's buttons, recorded with their name. Only a message that reads as such
 * an answer looks for a plan (the conversation's own messages, already in the turn, then the task item), so
 * other turns cost nothing; with no plan in review the message goes on to the planner as usual.
 */
export async function researchChatReview(
  deps: ChatReviewDeps,
  conversationId: string,
  text: string,
  user: Reviewer,
  opts: { eventId: string },
): Promise<{ outcome: string } | undefined> {
  const answered = await answerPlan(deps, conversationId, text, user, { ...opts, byText: false });
  if (!answered) return undefined;
  if (answered.reply) await say(deps, conversationId, answered.taskId, answered.reply);
  await deps.turn?.flush();
  return { outcome: `research ${answered.taskId}: ${DONE[answered.kind]} from the chat` };
}

/**
 * The same answers by text, from a team member whose texts may arrive coalesced ("remove 3", then "run it",
 * inside one cooldown window): handled only when every text is such an answer, each in order under its
 * own event id; the replies, joined, are for the caller to text back. Undefined: the texts are something
 * else (or no plan waits), and go on to the planner.
 */
export async function researchReviewByText(
  deps: ChatReviewDeps,
  conversationId: string,
  texts: { text: string; eventId: string }[],
  user: Reviewer,
): Promise<string | undefined> {
  if (!texts.length || !texts.every((t) => decisionOf(t.text))) return undefined;
  const replies: string[] = [];
  for (const t of texts) {
    const answered = await answerPlan(deps, conversationId, t.text, user, {
      eventId: t.eventId,
      byText: true,
    });
    if (answered?.reply) replies.push(answered.reply);
  }
  return replies.length ? replies.join('\n\n') : undefined;
}

/** One answer applied to the conversation's plan in review: what was decided and what to say about it. */
async function answerPlan(
  deps: ChatReviewDeps,
  conversationId: string,
  text: string,
  user: Reviewer,
  opts: { eventId: string; byText: boolean },
): Promise<{ taskId: string; kind: Decision['kind']; reply?: string | undefined } | undefined> {
  const decision = decisionOf(text);
  if (!deps.research || !decision) return undefined;
  const taskId = await planInReview(deps, deps.research, conversationId);
  if (!taskId) return undefined;
  try {
    const how = { user, byText: opts.byText, editId: opts.eventId };
    return { taskId, kind: decision.kind, reply: await decide(deps.research, taskId, decision, how) };
  } catch (e) {
    if (!isAppError(e) || e.retryable) throw e;
    const reply =
      e instanceof ConflictError || e instanceof ValidationError
        ? `${capital(e.message)}.`
        : `That did not work: ${e.message}`;
    return { taskId, kind: decision.kind, reply };
  }
}

/** The decision taken; the reply to say (none when the use case wrote its own message in the chat). */
async function decide(
  research: ResearchDeps,
  taskId: string,
  decision: Decision,
  how: { user: Reviewer; byText: boolean; editId: string },
): Promise<string | undefined> {
  const reviewer = { id: how.user.id, name: how.user.name ?? how.user.email };
  if (decision.kind === 'run') {
    const { approveResearchPlan } = await reviewResearch();
    const g = await approveResearchPlan(research, taskId, reviewer);
    const n = g?.nodes.filter((x) => x.parentId === 'r').length ?? 0;
    const steps = `${n} step${n === 1 ? '' : 's'}`;
    return how.byText
      ? `Approved — running the plan's ${steps} now. I will text you when the report is ready.`
      : `Approved — running the plan's ${steps} now. Their progress shows below.`;
  }
  if (decision.kind === 'drop') {
    // Cancelling writes its own "Research cancelled by …" message in the conversation.
    const { cancelResearch } = await reviewResearch();
    await cancelResearch(research, taskId, reviewer);
    return how.byText ? 'Okay, the research is cancelled.' : undefined;
  }
  return removeSteps(research, taskId, decision.numbers, { ...how, reviewer: reviewer.name });
}

/**
 * "remove 2 4": the draft without those steps, saved once per message (a redelivered turn finds its edit
 * applied and only says the plan again), then the new plan said like the first one — in the chat as a plan
 * message, by text as the reply.
 */
async function removeSteps(
  research: ResearchDeps,
  taskId: string,
  numbers: number[],
  how: { byText: boolean; editId: string; reviewer: string },
): Promise<string | undefined> {
  const task = await research.research.getTask(taskId);
  const why = `edited by ${how.reviewer}: step ${numbers.join(', ')} removed`;
  let g: Awaited<ReturnType<typeof research.research.load>>;
  if (task?.lastEditId === how.editId) g = await research.research.load(taskId);
  else {
    const plan = withoutSteps(task?.draft ?? [], numbers);
    if (!plan.length) throw new ValidationError('that would leave no steps; reply CANCEL to drop the plan');
    const { editResearchPlan } = await reviewResearch();
    g = await editResearchPlan(research, taskId, plan, { editId: how.editId, reason: why });
  }
  const draft = g?.task.draft;
  if (!g || !draft) return undefined;
  if (how.byText) return reviewText(g.task, draft);
  await announceReview(research, g.task, draft, why, g.task.updatedAt, how.editId);
  return undefined;
}

const DONE: Record<Decision['kind'], string> = { run: 'approved', drop: 'cancelled', remove: 'edited' };
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

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
