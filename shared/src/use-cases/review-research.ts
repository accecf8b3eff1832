import type { PlanItem, ResearchTask } from '../contracts/research';
import { validatePlan } from '../domain/research/graph';
import { ConflictError, NotFoundError } from '../errors';
import type { ResearchGraph } from '../ports/research-store';
import { enqueueStep, type ResearchDeps } from '../research/engine-deps';
import { materializePlan } from './run-research-node';

export type ReviewDeps = Omit<ResearchDeps, 'brain'> & Partial<Pick<ResearchDeps, 'brain'>>;
type Reviewer = { id: string; name?: string | undefined };

async function inReview(deps: ReviewDeps, taskId: string): Promise<ResearchGraph & { task: ResearchTask }> {
  const graph = await deps.research.load(taskId);
  if (!graph) throw new NotFoundError(`No research task ${taskId}`);
  if (graph.task.status !== 'review')
    throw new ConflictError(
      `The task is ${graph.task.status}; only a plan waiting for review can be changed`,
    );
  return graph;
}

/**
 * A person's edits to the plan under review (remove, add, edit steps): checked, then kept as the draft.
 * `editId` (the chat message that asked for it) makes a redelivered edit a no-op; `edited` says whether
 * this call saved it.
 */
export async function editResearchPlan(
  deps: ReviewDeps,
  taskId: string,
  plan: PlanItem[],
  opts: { editId?: string; reason?: string } = {},
) {
  await inReview(deps, taskId);
  validatePlan(plan, deps.limits);
  const reason = opts.reason ?? 'edited by a person';
  const at = deps.clock().toISOString();
  const edited = await deps.research.saveDraft(taskId, plan, reason, at, opts.editId);
  const graph = await deps.research.load(taskId);
  return graph ? { ...graph, edited } : undefined;
}

/**
 * The plan runs as the person left it: the root's children are created from the draft (the same
 * transaction as an unreviewed plan) and every READY child is enqueued.
 */
export async function approveResearchPlan(
  deps: ReviewDeps,
  taskId: string,
  user: Reviewer,
  plan?: PlanItem[],
) {
  const graph = await inReview(deps, taskId);
  const items = plan ?? graph.task.draft;
  if (!items?.length) throw new ConflictError('There is no plan to approve');
  validatePlan(items, deps.limits);
  const root = graph.nodes.find((n) => !n.parentId);
  if (root?.status !== 'RUNNING') throw new ConflictError('The plan was already approved');
  await materializePlan(deps, graph, root, items, user.name ?? user.id);
  return deps.research.load(taskId);
}

/** The planner is asked again, from the person's edits and note; the new draft waits for review. */
export async function replanResearch(deps: ReviewDeps, taskId: string, plan: PlanItem[], note?: string) {
  await inReview(deps, taskId);
  validatePlan(plan, deps.limits);
  const now = deps.clock();
  await deps.research.saveDraft(taskId, plan, 're-planning from your edits', now.toISOString());
  await deps.research.updateTask(taskId, { replanNote: note ?? '', updatedAt: now.toISOString() }, [
    'review',
  ]);
  await enqueueStep(deps, { taskId, id: 'r' }, 'replan', { attempt: now.getTime() });
  return deps.research.load(taskId);
}

/** Cancel: nodes that have not finished are dropped as their messages arrive; the conversation is told once. */
export async function cancelResearch(deps: ReviewDeps, taskId: string, user: Reviewer) {
  const task = await deps.research.getTask(taskId);
  if (!task) throw new NotFoundError(`No research task ${taskId}`);
  const now = deps.clock().toISOString();
  const won = await deps.research.updateTask(
    taskId,
    { status: 'cancelled', finishedAt: now, updatedAt: now },
    ['planning', 'review', 'running'],
  );
  if (!won) throw new ConflictError(`The task is already ${task.status}`);
  await deps.conversations.appendMessage({
    id: `m_research_done_${taskId}`,
    conversationId: task.conversationId,
    role: 'assistant',
    text: `Research cancelled by ${user.name ?? user.id}: ${task.goal}`,
    createdAt: now,
    channel: 'web',
    author: { kind: 'assistant', name: 'Switchboard' },
    research: { taskId },
  });
  return deps.research.load(taskId);
}
