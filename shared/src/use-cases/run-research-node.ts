import type { EventOf } from '../contracts/events';
import type { NodeContext, NodeOutput, PlanItem, ResearchNode } from '../contracts/research';
import { childNodes, contextFor, reviewReason, validatePlan } from '../domain/research/graph';
import { AppError, isAppError } from '../errors';
import type { ResearchGraph } from '../ports/research-store';
import type { PlanEdits } from '../research/brain';
import { enqueueStep, enqueueSteps, type ResearchDeps } from '../research/engine-deps';
import { announceReview } from '../research/review-message';
import { queueTextUpdate } from '../research/text-updates';
import { finalizeResearch } from './finalize-research';

export interface NodeOutcome {
  outcome: string;
}

/** Another worker holds the node (a duplicate delivery): SQS brings this message back after its lease. */
class NodeBusyError extends AppError {
  constructor(id: string) {
    super(`research node ${id} is being worked on`, { code: 'research_busy', status: 409, retryable: true });
  }
}

/** The engine's bookkeeping needs no brain: a person's approval materializes a plan through it too. */
type EngineDeps = Omit<ResearchDeps, 'brain'>;

const ENDED = new Set(['DONE', 'FAILED', 'CANCELLED']);

/**
 * One step of one research node, from its own queue message (issue 21). Primary course:
 * 1. load the task's partition (one query) and drop the step if the task was cancelled;
 * 2. `run`: claim READY → RUNNING (conditional, with a lease); a plan node is planned and its children
 *    written in one transaction (PLAN_DONE), each READY child is enqueued; an atomic node is executed;
 * 3. `aggregate`: the one worker that moved the parent PLAN_DONE → AGGREGATING combines the children;
 * 4. a finished node counts itself off its dependents and its parent (idempotent decrements); the write
 *    that brings a counter to zero makes exactly one winner, which enqueues the next step.
 * A redelivered message finds the node further on and repeats only the idempotent tail (enqueue, count).
 */
export async function runResearchNode(
  deps: ResearchDeps,
  event: EventOf<'research.node'>,
): Promise<NodeOutcome> {
  const p = event.payload;
  const graph = await deps.research.load(p.taskId);
  const node = graph?.nodes.find((n) => n.id === p.nodeId);
  if (!graph || !node) return { outcome: `no research node ${p.taskId}/${p.nodeId}` };
  if (graph.task.status === 'cancelled') {
    await deps.research.finish(
      p.taskId,
      node.id,
      ['PENDING', 'READY', 'RUNNING', 'PLAN_DONE', 'AGGREGATING'],
      {
        status: 'CANCELLED',
        finishedAt: deps.clock().toISOString(),
      },
    );
    return { outcome: 'task cancelled' };
  }
  if (p.step === 'replan') return replanRoot(deps, graph, node);
  // A drafted write becomes a card, and a text to a team member goes out, in runs of the conversation
  // (use-cases/propose-research-write, use-cases/tell-research-by-text).
  if (p.step === 'propose' || p.step === 'tell')
    return { outcome: `node ${node.id}: ${p.step} is run by the agent` };
  if (ENDED.has(node.status)) {
    await propagate(deps, graph, node);
    return { outcome: `node ${node.id} already ${node.status}; propagated` };
  }
  if (p.step === 'aggregate') return aggregateNode(deps, graph, node);
  if (node.status === 'PLAN_DONE') {
    await enqueueReadyChildren(deps, graph.task.id, node.id);
    return { outcome: `node ${node.id} already planned` };
  }
  if (node.status === 'AGGREGATING') {
    await enqueueStep(deps, node, 'aggregate');
    return { outcome: `node ${node.id} aggregating` };
  }
  if (node.status === 'PENDING') return { outcome: `node ${node.id} is not ready` };
  return runNode(deps, graph, node);
}

async function runNode(deps: ResearchDeps, graph: ResearchGraph, node: ResearchNode): Promise<NodeOutcome> {
  const now = deps.clock();
  const context = contextFor(node, graph.nodes, graph.task.goal);
  const won = await deps.research.claim(graph.task.id, node.id, {
    from: 'READY',
    to: 'RUNNING',
    now: now.toISOString(),
    leaseUntil: new Date(now.getTime() + deps.leaseSeconds * 1000).toISOString(),
    context,
  });
  if (!won) throw new NodeBusyError(node.id);
  await publish(deps, node, 'RUNNING');
  const running: ResearchNode = { ...node, status: 'RUNNING', startedAt: now.toISOString(), context };
  const over = overBudget(deps, graph, now);
  if (over) return fail(deps, graph, running, over);
  if (running.kind === 'plan') return planNode(deps, graph, running);
  // Only the executor's failure is the node's failure; a store or queue error after it is the worker's, and
  // is rethrown so the message comes back (catching it here would lose the fan-in).
  let result: Awaited<ReturnType<ResearchDeps['brain']['execute']>>;
  try {
    result = await deps.brain.execute({ task: graph.task, node: running, context });
  } catch (e) {
    return retryOrFail(deps, graph, running, e);
  }
  await deps.research.addTokens(graph.task.id, result.tokens);
  return complete(deps, graph, running, { status: 'DONE', output: result.output, tokens: result.tokens });
}

/** Time and tokens are checked when a node starts; a node over budget fails, and its parent says so. */
function overBudget(deps: ResearchDeps, graph: ResearchGraph, now: Date): string | undefined {
  const t = graph.task;
  if (now.toISOString() > t.deadlineAt)
    return `budget: the task ran past its ${t.budget.maxMs / 1000} s limit`;
  if (deps.brain.mode === 'claude' && t.usage.tokens >= t.budget.maxTokens)
    return `budget: the task used its ${t.budget.maxTokens} model tokens`;
  return undefined;
}

async function planNode(deps: ResearchDeps, graph: ResearchGraph, node: ResearchNode) {
  const input = {
    task: graph.task,
    node,
    context: node.context ?? contextFor(node, graph.nodes, graph.task.goal),
  };
  let decided: Awaited<ReturnType<typeof decidePlan>>;
  try {
    decided = await decidePlan(deps, graph, node, input);
  } catch (e) {
    return retryOrFail(deps, graph, node, e);
  }
  if (decided.kind === 'leaf')
    return complete(deps, graph, decided.leaf, {
      status: 'DONE',
      output: decided.output,
      tokens: decided.tokens,
    });
  const why = node.parentId ? undefined : reviewReason(decided.items, deps.limits);
  if (why && !graph.task.reviewedBy) {
    const at = deps.clock().toISOString();
    // Saved only while the task is planning or in review: a task cancelled meanwhile announces nothing.
    if (!(await deps.research.saveDraft(graph.task.id, decided.items, why, at)))
      return { outcome: `task ${graph.task.id} moved on; plan not kept` };
    await announceReview(deps, graph.task, decided.items, why, at);
    await queueTextUpdate(deps, graph.task, at);
    await publish(deps, node, 'REVIEW');
    return { outcome: `plan of ${node.id} waits for review: ${why}` };
  }
  return materializePlan(deps, graph, node, decided.items);
}

/** The brain's part of a plan node: atomic after all (then executed), or its checked sub-plan. */
async function decidePlan(
  deps: ResearchDeps,
  graph: ResearchGraph,
  node: ResearchNode,
  input: { task: ResearchGraph['task']; node: ResearchNode; context: NodeContext },
): Promise<
  | { kind: 'leaf'; leaf: ResearchNode; output: NodeOutput; tokens: number }
  | { kind: 'plan'; items: PlanItem[] }
> {
  // A plan step whose sub-steps are already known (a template, a person's edit, a plan given to the API)
  // runs as given, in both modes: no brain is asked to atomize or plan it again.
  if (node.subtasks?.length) {
    validatePlan(node.subtasks, { ...deps.limits, maxDepth: deps.limits.maxDepth - node.depth });
    return { kind: 'plan', items: node.subtasks };
  }
  // At the depth limit a step can only be atomic.
  const atom = await deps.brain.atomize({ ...input, mustBeAtomic: node.depth >= deps.limits.maxDepth - 1 });
  if (atom.atomic) {
    const leaf: ResearchNode = { ...node, ...atom.item, kind: atom.item.kind };
    const { output, tokens } = await deps.brain.execute({ ...input, node: leaf });
    await deps.research.addTokens(graph.task.id, atom.tokens + tokens);
    return { kind: 'leaf', leaf, output, tokens: atom.tokens + tokens };
  }
  const planned = await deps.brain.plan(input);
  await deps.research.addTokens(graph.task.id, planned.tokens + atom.tokens);
  validatePlan(planned.items, { ...deps.limits, maxDepth: deps.limits.maxDepth - node.depth });
  return { kind: 'plan', items: planned.items };
}

/** Children written with the parent's PLAN_DONE in one transaction, then every READY child enqueued. */
export async function materializePlan(
  deps: EngineDeps,
  graph: ResearchGraph,
  node: ResearchNode,
  items: ResearchNode['subtasks'] & object,
  reviewedBy?: string,
): Promise<NodeOutcome> {
  const now = deps.clock().toISOString();
  const children = childNodes(node, items, now);
  const made = await deps.research.materialize({
    taskId: graph.task.id,
    parentId: node.id,
    children,
    now,
    maxNodes: graph.task.budget.maxNodes,
    ...(reviewedBy ? { reviewedBy } : {}),
  });
  if (made === 'over_budget')
    return fail(deps, graph, node, `budget: more than ${graph.task.budget.maxNodes} steps in the task`);
  // A crash part-way leaves some sent: the PLAN_DONE branch of a redelivery re-sends every READY child
  // under the same ids, and a copy that finds its child claimed or done does nothing new.
  await enqueueSteps(
    deps,
    children.filter((c) => c.status === 'READY'),
    'run',
  );
  await publish(deps, node, 'PLAN_DONE');
  return { outcome: `node ${node.id} planned ${children.length} steps` };
}

async function enqueueReadyChildren(deps: EngineDeps, taskId: string, nodeId: string) {
  const graph = await deps.research.load(taskId);
  const ready = (graph?.nodes ?? []).filter((c) => c.parentId === nodeId && c.status === 'READY');
  await enqueueSteps(deps, ready, 'run');
}

async function retryOrFail(deps: ResearchDeps, graph: ResearchGraph, node: ResearchNode, e: unknown) {
  const message = e instanceof Error ? e.message : String(e);
  const attempts = node.attempts + 1;
  const retryable = !isAppError(e) || e.retryable;
  if (retryable && attempts < deps.retry.maxAttempts) {
    if (!(await deps.research.release(graph.task.id, node.id, { attempts, error: message })))
      return { outcome: `node ${node.id} moved on` };
    const delaySeconds = deps.retry.baseDelaySeconds * 2 ** (attempts - 1);
    await enqueueStep(deps, node, 'run', { attempt: attempts, delaySeconds });
    deps.log.warn('research.node_retry', {
      taskId: graph.task.id,
      nodeId: node.id,
      attempts,
      error: message,
    });
    return { outcome: `node ${node.id} retries in ${delaySeconds}s` };
  }
  return fail(deps, graph, node, message.slice(0, 1000));
}

function fail(deps: EngineDeps, graph: ResearchGraph, node: ResearchNode, error: string) {
  deps.log.warn('research.node_failed', { taskId: graph.task.id, nodeId: node.id, error });
  return complete(deps, graph, node, { status: 'FAILED', error });
}

/** Records the node's end (if it is still ours), then counts it off its dependents and parent. */
async function complete(
  deps: EngineDeps,
  graph: ResearchGraph,
  node: ResearchNode,
  patch: Pick<ResearchNode, 'status'> & Partial<ResearchNode>,
): Promise<NodeOutcome> {
  const finishedAt = deps.clock().toISOString();
  const ended = { ...node, ...patch, finishedAt };
  const kindPatch =
    node.kind !== 'plan' ? { kind: node.kind, ...(node.tool ? { tool: node.tool } : {}) } : {};
  const mine = await deps.research.finish(graph.task.id, node.id, ['RUNNING', 'AGGREGATING'], {
    ...kindPatch,
    ...patch,
    finishedAt,
  });
  if (!mine) return { outcome: `node ${node.id} was finished by another worker` };
  await publish(deps, node, patch.status);
  await deps.faults?.afterResult?.(ended);
  await propagate(deps, graph, ended);
  return { outcome: `node ${node.id} ${patch.status}` };
}

/**
 * A finished node counts itself off each dependent and off its parent. The decrement is conditional on the
 * node not being counted yet; the transition that follows a zero is conditional on the old status, so one
 * caller wins and enqueues. A repeat (redelivery after a crash) that finds its count already applied and
 * the target already moved re-sends the step under the same message id: a copy of a step that already ran
 * finds its node further on and does nothing new (run and aggregate steps skip the event ledger).
 */
export async function propagate(deps: EngineDeps, graph: ResearchGraph, node: ResearchNode) {
  const taskId = graph.task.id;
  const now = deps.clock().toISOString();
  // A writing step's draft goes to the conversation as a card: its own message (fixed id, so a repeat after
  // a crash is a ledger duplicate), sent before the fan-in so a crash here cannot lose it.
  if (node.status === 'DONE' && node.output?.proposal) await enqueueStep(deps, node, 'propose');
  for (const d of node.dependents) {
    const r = await deps.research.countDown(taskId, d, 'pendingDeps', node.id);
    await deps.faults?.afterCountDown?.(node, d);
    if (r.remaining <= 0 && r.status === 'PENDING') {
      if (await deps.research.promote(taskId, d, 'PENDING', 'READY', now))
        await enqueueStep(deps, { taskId, id: d }, 'run');
    } else if (!r.applied && r.status === 'READY') await enqueueStep(deps, { taskId, id: d }, 'run');
  }
  if (!node.parentId) return finalizeResearch(deps, taskId);
  const parent = node.parentId;
  const r = await deps.research.countDown(taskId, parent, 'pendingChildren', node.id);
  await deps.faults?.afterCountDown?.(node, parent);
  if (r.remaining <= 0 && r.status === 'PLAN_DONE') {
    if (await deps.research.promote(taskId, parent, 'PLAN_DONE', 'AGGREGATING', now))
      await enqueueStep(deps, { taskId, id: parent }, 'aggregate');
  } else if (!r.applied && r.status === 'AGGREGATING')
    await enqueueStep(deps, { taskId, id: parent }, 'aggregate');
}

async function aggregateNode(
  deps: ResearchDeps,
  graph: ResearchGraph,
  node: ResearchNode,
): Promise<NodeOutcome> {
  if (node.status !== 'AGGREGATING') return { outcome: `node ${node.id} is ${node.status}, not aggregating` };
  const now = deps.clock();
  const won = await deps.research.claim(graph.task.id, node.id, {
    from: 'AGGREGATING',
    to: 'AGGREGATING',
    now: now.toISOString(),
    leaseUntil: new Date(now.getTime() + deps.leaseSeconds * 1000).toISOString(),
  });
  if (!won) throw new NodeBusyError(node.id);
  await publish(deps, node, 'AGGREGATING');
  const children = graph.nodes.filter((n) => n.parentId === node.id);
  const context = node.context ?? contextFor(node, graph.nodes, graph.task.goal);
  let r: Awaited<ReturnType<ResearchDeps['brain']['aggregate']>>;
  try {
    r = await deps.brain.aggregate({ task: graph.task, node, context, children });
  } catch (e) {
    // An aggregation that cannot be written still leaves the children's results: fall back to listing them.
    deps.log.warn('research.aggregate_failed', { taskId: graph.task.id, nodeId: node.id, error: String(e) });
    const summary = children.map(
      (c) => `- ${c.goal}: ${c.output?.summary.split('\n')[0] ?? c.error ?? c.status}`,
    );
    r = {
      degraded: true,
      tokens: 0,
      output: {
        summary: `_The summary could not be written (${String(e).slice(0, 200)})._\n${summary.join('\n')}`,
      },
    };
  }
  await deps.research.addTokens(graph.task.id, r.tokens);
  return complete(deps, graph, node, { status: 'DONE', output: r.output, degraded: r.degraded });
}

/** A person asked the planner to re-plan from their edits (the task stays in review with the new draft). */
async function replanRoot(
  deps: ResearchDeps,
  graph: ResearchGraph,
  node: ResearchNode,
): Promise<NodeOutcome> {
  if (graph.task.status !== 'review' || !graph.task.draft) return { outcome: 'nothing to re-plan' };
  const context = node.context ?? contextFor(node, graph.nodes, graph.task.goal);
  const edits: PlanEdits = { plan: graph.task.draft, note: graph.task.replanNote };
  const planned = await deps.brain.plan({ task: graph.task, node, context, edits });
  validatePlan(planned.items, deps.limits);
  const why = reviewReason(planned.items, deps.limits) ?? 're-planned from your edits';
  const at = deps.clock().toISOString();
  if (!(await deps.research.saveDraft(graph.task.id, planned.items, why, at)))
    return { outcome: `task ${graph.task.id} moved on; re-plan not kept` };
  await announceReview(deps, graph.task, planned.items, why, at);
  await queueTextUpdate(deps, graph.task, at);
  await publish(deps, node, 'REVIEW');
  return { outcome: 're-planned' };
}

async function publish(deps: EngineDeps, node: Pick<ResearchNode, 'taskId' | 'id'>, status: string) {
  await deps
    .publish?.({ type: 'research.node', taskId: node.taskId, nodeId: node.id, status })
    .catch(() => {});
}
