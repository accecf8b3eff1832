import type { PlanItem, ResearchBudget, ResearchNode, ResearchTask } from '../contracts/research';
import { validatePlan } from '../domain/research/graph';
import { matchTemplate } from '../domain/research/templates';
import { newId } from '../ids';
import { enqueueStep, type ResearchDeps } from '../research/engine-deps';

export const DEFAULT_RESEARCH_BUDGET: ResearchBudget = {
  maxNodes: 30,
  maxTokens: 200_000,
  maxMs: 10 * 60_000,
};

export interface StartResearchInput {
  goal: string;
  conversationId: string;
  user: { id: string; name?: string | undefined };
  /** A stable id makes a retried start (a redelivered chat turn) the same task. */
  taskId?: string;
  /** A plan given up front (the API, the benchmark); otherwise the planner makes one. */
  plan?: PlanItem[];
  /** Already reviewed: the plan runs without waiting for a person (the benchmark, an API caller). */
  reviewedBy?: string;
  /** A team member asked by text: the plan to review and the end are texted to them (research/text-updates). */
  byText?: boolean;
  budget?: Partial<ResearchBudget>;
}

export type StartResearchDeps = Pick<
  ResearchDeps,
  'research' | 'queue' | 'clock' | 'conversations' | 'limits' | 'log'
> & { mode: 'rules' | 'claude'; budget?: Partial<ResearchBudget> };

/**
 * Starts a research task: the task and its root node (READY) in one write, the root's first message on the
 * queue, and a message in the conversation that the PWA shows as the live plan and tree.
 */
export async function startResearch(
  deps: StartResearchDeps,
  input: StartResearchInput,
): Promise<ResearchTask> {
  if (input.plan) validatePlan(input.plan, deps.limits);
  const now = deps.clock();
  const at = now.toISOString();
  const budget = { ...DEFAULT_RESEARCH_BUDGET, ...deps.budget, ...input.budget };
  const id = input.taskId ?? newId('rt_');
  const template = matchTemplate(input.goal)?.template;
  const task: ResearchTask = {
    id,
    conversationId: input.conversationId,
    goal: input.goal,
    mode: deps.mode,
    ...(template && deps.mode === 'rules' ? { template } : {}),
    status: 'planning',
    createdBy: input.user.id,
    createdAt: at,
    updatedAt: at,
    deadlineAt: new Date(now.getTime() + budget.maxMs).toISOString(),
    budget,
    usage: { nodes: 1, tokens: 0 },
    ...(input.reviewedBy ? { reviewedBy: input.reviewedBy } : {}),
    ...(input.byText ? { askedByText: true } : {}),
  };
  const root: ResearchNode = {
    taskId: id,
    id: 'r',
    depth: 0,
    goal: input.goal,
    kind: 'plan',
    ...(input.plan ? { subtasks: input.plan } : {}),
    status: 'READY',
    dependsOn: [],
    dependents: [],
    children: [],
    pendingDeps: 0,
    pendingChildren: 0,
    attempts: 0,
    createdAt: at,
    readyAt: at,
  };
  // A retried start finds its task: the message (same id and time) and the enqueue (same message id) repeat
  // harmlessly, so a start that died half-way still gets its root run.
  const created = await deps.research.create(task, root);
  const stored = created ? task : ((await deps.research.getTask(id)) ?? task);
  await deps.conversations.appendMessage({
    id: `m_research_${id}`,
    conversationId: input.conversationId,
    role: 'assistant',
    text: `Researching: ${input.goal}. The plan and its progress are shown here.`,
    createdAt: stored.createdAt,
    channel: 'web',
    author: { kind: 'assistant', name: 'Switchboard' },
    research: { taskId: id },
  });
  await enqueueStep(deps, root, 'run');
  deps.log.info('research.started', { taskId: id, conversationId: input.conversationId, mode: deps.mode });
  return stored;
}
